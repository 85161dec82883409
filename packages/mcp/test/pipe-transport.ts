import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { type JSONRPCMessage, ReadBuffer, serializeMessage, type Transport } from '@modelcontextprotocol/client';

/**
 * The official client's side of a server process the test started itself: the test keeps the
 * process, so it can close the pipes as a client that goes away does and read how it exited.
 */
export class PipeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {}

  async start(): Promise<void> {
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage())
        this.onmessage?.(message);
    });
    this.child.once('exit', () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.child.stdin.write(serializeMessage(message));
  }

  /** Goes away: stops reading the server's answers and closes its input. */
  async close(): Promise<void> {
    this.child.stdout.destroy();
    this.child.stdin.end();
  }
}
