const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text as HTML shows it: every character that could start markup, escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] as string);
}

/** `fr-CA` reads the French wording; a language without one reads English. */
export function wordingFor<W>(
  wordings: { en: W; fr: W },
  language: string,
): { wording: W; locale: string } {
  const base = language.slice(0, 2).toLowerCase();
  return base === "fr"
    ? { wording: wordings.fr, locale: language }
    : { wording: wordings.en, locale: "en" };
}

/** The service's emails: paragraphs, a button to a link, the link in words, a footer. */
export function emailHtml(parts: {
  locale: string;
  paragraphs: string[];
  button: string;
  link: string;
  linkHelp: string;
  footer: string;
}): string {
  const link = escapeHtml(parts.link);
  return `<!doctype html>
<html lang="${escapeHtml(parts.locale)}">
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2937">
${parts.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join("\n")}
<p><a href="${link}" style="display: inline-block; padding: 12px 20px; background: #111827; color: #ffffff; text-decoration: none; border-radius: 6px">${escapeHtml(parts.button)}</a></p>
<p style="font-size: 13px">${escapeHtml(parts.linkHelp)} <a href="${link}">${link}</a></p>
<p style="font-size: 12px; color: #6b7280">${escapeHtml(parts.footer)}</p>
</body>
</html>`;
}
