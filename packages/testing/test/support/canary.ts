/** The forms a canary secret can take on the wire and in files. */
export function canaryForms(canary: string): string[] {
  const bytes = Buffer.from(canary);
  const base64Cores = [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    return encoded.slice(offset === 0 ? 0 : 4, encoded.length - 4);
  });
  const forms = new Set([
    canary,
    encodeURIComponent(canary),
    new URLSearchParams({ v: canary }).toString().slice(2),
    JSON.stringify(canary).slice(1, -1),
    Buffer.from(canary).toString('base64'),
    Buffer.from(canary).toString('base64url'),
    ...base64Cores,
    ...base64Cores.map((core) => core.replace(/\+/g, '-').replace(/\//g, '_')),
    // The secret part alone, without the recognisable prefix.
    canary.slice('canary-'.length, 'canary-'.length + 16),
  ]);
  return [...forms].filter((form) => form.length >= 8);
}
