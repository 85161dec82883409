import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A test server listening on a free port of 127.0.0.1. */
export interface Loopback {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Ends every connection, keep-alive ones too, and stops listening. */
  close(): Promise<void>;
}

/** Listens on a free port of 127.0.0.1, keeping the server's sockets so that closing ends them; `onClose` runs first. */
export async function listenOnLoopback(server: Server, onClose?: () => void): Promise<Loopback> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        onClose?.();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
