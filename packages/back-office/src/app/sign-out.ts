import { session } from "../api/session.js";
import { BASE, navigate } from "./navigation.js";

/** Ends the session at the admin's request, back to the sign-in. */
export function signOut(): void {
  session.end("signed-out");
  navigate(BASE);
}
