import type { SecretForms } from './forms.js';

/** Up to this many forms, each is searched for on its own with the engine's substring search; from there on, through an index. */
const SEARCHED_ONE_BY_ONE = 48;

/** How many lists of forms an index has: forms share one when their first three characters hash alike. */
const INDEX_SLOTS = 16384;

/** Stops a search at the first form found. */
const FOUND = () => true;

/** The slot of the first three characters of a form, or of text at a place (a small integer: no allocation per place). */
function slotAt(text: string, at: number): number {
  return (text.charCodeAt(at) * 961 + text.charCodeAt(at + 1) * 31 + text.charCodeAt(at + 2)) & (INDEX_SLOTS - 1);
}

/**
 * The forms of some secrets, and where they occur in a text. A few forms are searched for one
 * by one; many (a recording that learned a token from every record of a page, a run that
 * signs every request) through an index by their first three characters, so the text is read
 * once whatever their number instead of once per form. A base64 match takes in the whole
 * encoded run around it (and its `=` padding), whose edge characters also carry bits of the
 * secret.
 */
export class FormSet {
  private readonly plain: string[] = [];
  private readonly encoded: string[] = [];
  private readonly known = new Set<string>();
  private index: Array<Array<{ form: string; encoded: boolean }> | undefined> | undefined;
  shortest = Infinity;

  add(forms: SecretForms): void {
    for (const [list, encoded] of [
      [forms.plain, false],
      [forms.encoded, true],
    ] as const) {
      for (const form of list) {
        if (this.known.has(form)) continue;
        this.known.add(form);
        (encoded ? this.encoded : this.plain).push(form);
        if (form.length < this.shortest) this.shortest = form.length;
        this.index = undefined;
      }
    }
  }

  /** Whether any form occurs in the text (no callback: this runs for every string of every record). */
  contains(text: string): boolean {
    if (text.length < this.shortest) return false;
    if (this.known.size > SEARCHED_ONE_BY_ONE) return this.findIndexed(text, FOUND);
    for (const form of this.plain) if (text.includes(form)) return true;
    for (const form of this.encoded) if (text.includes(form)) return true;
    return false;
  }

  /** Calls `found` with each stretch `[start, end)` of the text a form takes up until it returns true; whether it did. */
  find(text: string, found: (start: number, end: number) => boolean | void): boolean {
    if (text.length < this.shortest) return false;
    if (this.known.size > SEARCHED_ONE_BY_ONE) return this.findIndexed(text, found);
    for (const form of this.plain) {
      for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + form.length))
        if (found(at, at + form.length)) return true;
    }
    for (const form of this.encoded) {
      for (let at = text.indexOf(form); at >= 0; ) {
        const [start, end] = base64Run(text, at, at + form.length);
        if (found(start, end)) return true;
        at = text.indexOf(form, end);
      }
    }
    return false;
  }

  private findIndexed(text: string, found: (start: number, end: number) => boolean | void): boolean {
    if (!this.index) {
      this.index = new Array(INDEX_SLOTS);
      for (const [list, encoded] of [
        [this.plain, false],
        [this.encoded, true],
      ] as const) {
        for (const form of list) (this.index[slotAt(form, 0)] ??= []).push({ form, encoded });
      }
    }
    // A base64 match already took in the whole run: a later match inside it adds nothing.
    let runEnd = 0;
    for (let at = 0; at <= text.length - this.shortest; at += 1) {
      const bucket = this.index[slotAt(text, at)];
      if (!bucket) continue;
      for (const { form, encoded } of bucket) {
        if (!text.startsWith(form, at)) continue;
        if (!encoded) {
          if (found(at, at + form.length)) return true;
        } else if (at >= runEnd) {
          const [start, end] = base64Run(text, at, at + form.length);
          runEnd = end;
          if (found(start, end)) return true;
        }
      }
    }
    return false;
  }
}

/** The whole base64 run around `[start, end)`, and its `=` padding. */
function base64Run(text: string, start: number, end: number): [number, number] {
  let from = start;
  let to = end;
  while (from > 0 && isBase64Char(text.charCodeAt(from - 1))) from -= 1;
  while (to < text.length && isBase64Char(text.charCodeAt(to))) to += 1;
  while (text.charCodeAt(to) === 61) to += 1;
  return [from, to];
}

/** A character of base64 or base64url text. */
function isBase64Char(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47 ||
    code === 95 ||
    code === 45
  );
}
