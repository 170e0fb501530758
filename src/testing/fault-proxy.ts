import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of a server that a test can turn into a blackhole and back. */
export interface FaultProxy {
  /** `127.0.0.1:<port>` to connect to instead of the server. */
  readonly host: string;
  readonly port: number;
  /**
   * Stop forwarding: connections are still accepted, and nothing sent either way arrives — no
   * reset, no close, as when a network partition or a vanished peer swallows the packets.
   */
  blackhole(): void;
  /** Forward again. Connections that lost bytes stay dead (their streams are corrupt); new ones work. */
  forward(): void;
  /** Close the proxy and every connection through it. */
  close(): Promise<void>;
}

/** Start a {@link FaultProxy} on a free port of 127.0.0.1, forwarding to `target`. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let holing = false;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    // A connection opened during a blackhole never reaches the server.
    if (holing) {
      client.on('data', () => undefined);
      return;
    }
    const upstream = createConnection(target);
    track(upstream);
    let dead = false;
    const pipe = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (holing) dead = true;
        if (!dead) to.write(chunk);
      });
    pipe(client, upstream);
    pipe(upstream, client);
    // Ends pass through only while forwarding: a blackhole swallows them too.
    client.on('end', () => !holing && !dead && upstream.end());
    upstream.on('end', () => !holing && !dead && client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    host: '127.0.0.1',
    port,
    blackhole: () => void (holing = true),
    forward: () => void (holing = false),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
