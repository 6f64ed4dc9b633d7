/** A text field's value in a form's data ("" when absent), trimmed. */
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === "string" ? value.trim() : "";
}
