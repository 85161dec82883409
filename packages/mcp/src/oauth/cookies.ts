/** The most of a Cookie header read; past it the cookies are not looked at. */
const HEADER_LIMIT = 8 * 1024;

/** The value of the cookie `name` in a request's Cookie header, undefined when it is not there. */
export function readCookie(header: string | string[] | undefined, name: string): string | undefined {
  if (typeof header !== 'string' || header.length > HEADER_LIMIT) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

export interface CookieAttributes {
  /** Seconds the browser keeps it; 0 removes it. */
  maxAge: number;
  /** Sent over https only: set when the site is served over https. */
  secure: boolean;
}

/**
 * A Set-Cookie value: HttpOnly (no script reads it), SameSite=Lax (sent on the top-level
 * redirect back from the authorization server, not on cross-site subrequests), on every path.
 * The value is base64url or JWT text, which needs no quoting.
 */
export function setCookie(name: string, value: string, attributes: CookieAttributes): string {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${Math.max(0, Math.floor(attributes.maxAge))}`];
  parts.push('HttpOnly', 'SameSite=Lax');
  if (attributes.secure) parts.push('Secure');
  return parts.join('; ');
}
