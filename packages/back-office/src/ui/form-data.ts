/**
 * A text field's value in a form's data, as typed ("" when absent): trim it where spaces are no
 * part of the value (a password's are).
 */
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === "string" ? value : "";
}
