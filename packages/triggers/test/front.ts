import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * A front a test owns, as a balancer stands before servers: it listens on 127.0.0.1 on a free
 * port and relays each connection, byte for byte, to the port it is pointed at now. A test points
 * it at whichever server is current, so an address handed out once (a webhook's delivery URL, a
 * database URL) stays the same across restarts without any port being reused; closing it ends
 * every relayed connection and refuses new ones. Held, it stands for a server that stopped
 * answering: every connection stays open and nothing more passes either way.
 */

export interface Front {
  /** `127.0.0.1:<port>` of the front itself. */
  host: string;
  port: number;
  /** Relays the connections that come next to this port of 127.0.0.1; undefined: ends them at once. */
  to(port: number | undefined): void;
  /** Ends every relayed connection; it still listens. */
  drop(): void;
  /** Relays nothing more on any connection, old or new, and ends none of them. */
  hold(): void;
  /** Ends every relayed connection and stops listening: connections to it are refused from now on. */
  close(): Promise<void>;
}

export async function startFront(target?: number): Promise<Front> {
  let port = target;
  const sockets = new Set<Socket>();
  let held = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    if (held) return void client.pause();
    if (port === undefined) return void client.destroy();
    const upstream = connect(port, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    // Either side failing or ending ends the other: a relay holds nothing open on its own.
    client.once('error', () => upstream.destroy());
    upstream.once('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const own = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    host: `127.0.0.1:${own}`,
    port: own,
    to(next) {
      port = next;
    },
    drop() {
      for (const socket of sockets) socket.destroy();
    },
    hold() {
      held = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}
