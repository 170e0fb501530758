import { createServer, type IncomingMessage } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * Serve a gateway over Streamable HTTP on 127.0.0.1 at `/mcp`, until `stop` settles.
 * Stateless: one protocol server and transport per request, over the same gateway.
 */
export async function serveHttp(
  newServer: () => Server,
  port: number,
  log: (line: string) => void,
  stop: Promise<void>,
): Promise<void> {
  const http = createServer((req: IncomingMessage, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const address = http.address();
  log(
    `interlock mcp: listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}/mcp`,
  );
  await stop;
  http.close();
}
