import { StringDecoder } from 'node:string_decoder';

/**
 * Reads a stream of JSON lines, one message a line, with a bound: a line longer than `limit`
 * characters is refused as soon as it is longer, before it is whole, so a peer that writes without
 * end cannot make the reader hold more than `limit`. Returns the function to give each chunk.
 */
export function jsonLines(
  limit: number,
  onMessage: (message: unknown) => void,
  onRefused: (reason: string) => void,
): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let refused = false;
  return (chunk) => {
    if (refused) return;
    const text = decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      const line = partial + text.slice(start, end);
      partial = '';
      start = end + 1;
      if (line.length > limit) return refuse(`a message of more than ${limit} characters`);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return refuse('a line that is not JSON');
      }
      onMessage(message);
      if (refused) return;
    }
    partial += text.slice(start);
    if (partial.length > limit) refuse(`a message of more than ${limit} characters`);
  };

  function refuse(reason: string): void {
    refused = true;
    partial = '';
    onRefused(reason);
  }
}
