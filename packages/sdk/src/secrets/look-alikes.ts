/**
 * Keys made plain before rule 10 reads them: compatibility forms (fullwidth letters,
 * ligatures) and accents go to plain letters, invisible characters go, and Cyrillic and Greek
 * letters that look Latin become the Latin letter (`pаssword` with a Cyrillic `а` is `password`).
 */

/**
 * Cyrillic and Greek letters drawn like Latin ones, to the Latin letter (case kept, so
 * `аpiKey` still splits at the `K`).
 */
const CONFUSABLES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  з: '3',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ɡ: 'g',
  А: 'A',
  В: 'B',
  Е: 'E',
  Ё: 'E',
  З: '3',
  І: 'I',
  Ї: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  Ѕ: 'S',
  Һ: 'H',
  Ԁ: 'D',
  Ԛ: 'Q',
  Ԝ: 'W',
  Ӏ: 'I',
  // Greek
  α: 'a',
  β: 'b',
  γ: 'y',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  σ: 'o',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  // Latin letters that are not plain ASCII after NFKD
  ı: 'i',
  ȷ: 'j',
  ß: 'ss',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ł: 'l',
  Ł: 'L',
};

const INVISIBLE = /[\p{M}\p{Default_Ignorable_Code_Point}]/gu;
const CONFUSABLE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'gu');

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) if (text.charCodeAt(index) > 127) return false;
  return true;
}

/** A key with compatibility forms, accents, invisible characters and look-alike letters made plain; case kept. */
export function plainKey(key: string): string {
  if (isAscii(key)) return key;
  return key
    .normalize('NFKD')
    .replace(INVISIBLE, '')
    .replace(CONFUSABLE, (char) => CONFUSABLES[char]!);
}

/** `apiKey`, `api_key`, `API-KEY`, `x-api-key`, `аpiKey` (Cyrillic а) and `accessToken` all normalise to text a known word is found in. */
export function normaliseKey(key: string): string {
  return plainKey(key)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}
