import { session } from "../api/session.js";
import { BASE, confirmLeaving, navigate } from "./navigation.js";

/** Ends the session at the admin's request, back to the sign-in; unpublished changes ask first. */
export async function signOut(): Promise<void> {
  if (!(await confirmLeaving())) return;
  session.end("signed-out");
  navigate(BASE);
}
