/**
 * The words platform rule 10 knows: names of secrets, and words that only say how a value is
 * written. How a key is read against them: `keys.ts`.
 */

/** Secret wherever they stand: a word equal to one, or ending with one; `password`, `passwd`, `passphrase`, `passcode` and `credential` anywhere in a word. */
const SECRET_ANYWHERE = [
  'password',
  'passwords',
  'passwd',
  'passphrase',
  'passcode',
  'secret',
  'secrets',
  'credential',
  'credentials',
  'creds',
];
export const SECRET_WITHIN = ['password', 'passwd', 'passphrase', 'passcode', 'credential'];
export const SECRET_ENDING = ['secret', 'secrets'];

/** Secret as the last word or words of a key (or, the longer ones, at the end of its last word: `accesstoken`, `xapikey`). */
const SECRET_NAMES = [
  'token',
  'accesstokens',
  'refreshtokens',
  'apitokens',
  'authtokens',
  'apikey',
  'apikeys',
  'accesskey',
  'accesskeyid',
  'secretkey',
  'privatekey',
  'signingkey',
  'clientkey',
  'sessionkey',
  'masterkey',
  'encryptionkey',
  'authkey',
  'hmackey',
  'licensekey',
  'sessionid',
  'sessid',
  'cookie',
  'cookies',
  'authorization',
  'authorisation',
  'authorizationcode',
  'authcode',
  'signature',
  'bearer',
  'jwt',
  'auth',
  'cred',
  'pass',
  'pw',
  'pwd',
  'pin',
  'otp',
  'totp',
  'hotp',
  'otpseed',
  'totpseed',
  'hotpseed',
  'mfaseed',
  'mfacode',
  'otpcode',
  'totpcode',
  'recoverycode',
  'recoverycodes',
  'backupcode',
  'backupcodes',
];

/** Trailing words that say how a value is written, not what it is: `token_value`, `private_key_pem`, `api_key_2`. */
export const FORMAT_WORDS = new Set([
  'value',
  'val',
  'string',
  'str',
  'text',
  'raw',
  'plain',
  'plaintext',
  'encoded',
  'enc',
  'encrypted',
  'b64',
  'base64',
  'base64url',
  'hex',
  'pem',
  'der',
  'bytes',
  'data',
]);

export const ANYWHERE = new Set(SECRET_ANYWHERE);
export const NAMES = new Set(SECRET_NAMES);
/** Names long enough to be told apart at the end of a longer word: `accesstoken` is `access` + `token`. */
export const NAME_ENDINGS = SECRET_NAMES.filter((name) => name.length >= 5);

/** The lengths of the words `SECRET_ANYWHERE` holds, to skip joining runs that cannot match. */
export const LONGEST_ANYWHERE = Math.max(...SECRET_ANYWHERE.map((word) => word.length));
export const SHORTEST_ANYWHERE = Math.min(...SECRET_ANYWHERE.map((word) => word.length));
