import { randomInt } from "node:crypto";

/** No 0/O, 1/I/L: codes are read off screens and typed at checkouts. */
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/**
 * A discount code nobody guesses: 12 characters of a 31-letter alphabet (59 bits), in groups of
 * four (`K7QX-M3RT-9WHZ`). Generated before the platform is asked, so a retry names it again.
 */
export function newDiscountCode(): string {
  const characters = Array.from({ length: 12 }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return [0, 4, 8].map((start) => characters.slice(start, start + 4).join("")).join("-");
}
