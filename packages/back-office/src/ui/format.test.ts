import { afterEach, describe, expect, test } from "vitest";
import { changeLocale } from "../i18n/locale.js";
import { formatCurrency, formatDate, formatNumber, formatPercent, formatPoints } from "./format.js";

afterEach(() => changeLocale("en", { persist: false }));

// Intl's narrow no-break spaces and no-break spaces, as plain spaces for readable expectations.
const plain = (text: string) => text.replace(/[\u202f\u00a0]/g, " ");

describe("formatting in the chosen language", () => {
  test("English", () => {
    expect(formatNumber(1250)).toBe("1,250");
    expect(formatPoints(1)).toBe("1 point");
    expect(formatPoints(1250)).toBe("1,250 points");
    expect(formatCurrency(12.5, "EUR")).toBe("€12.50");
    expect(formatPercent(0.125)).toBe("12.5%");
    expect(formatDate("2026-11-26")).toMatch(/Nov 26, 2026|26 Nov 2026/);
  });

  test("French", async () => {
    await changeLocale("fr", { persist: false });
    expect(plain(formatNumber(1250))).toBe("1 250");
    expect(formatPoints(0)).toBe("0 point");
    expect(plain(formatPoints(1250))).toBe("1 250 points");
    expect(plain(formatCurrency(12.5, "EUR"))).toBe("12,50 €");
    expect(plain(formatPercent(0.125))).toBe("12,5 %");
    expect(formatDate("2026-11-26")).toBe("26 nov. 2026");
  });
});
