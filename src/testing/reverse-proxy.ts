// A minimal reverse proxy, run as a process of its own in front of the service (src/http/trust-proxy.int.test.ts,
// and by hand: `npx tsx src/testing/reverse-proxy.ts --target http://127.0.0.1:3000 --port 8080`). Like
// nginx's `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`, it appends the address of the peer
// that connected to it to any X-Forwarded-For it received, for plain requests and WebSocket upgrades alike.
// Prints one JSON line {"msg":"listening","port":N} when it accepts connections.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { target: { type: 'string' }, port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } },
});
if (!values.target) {
  process.stderr.write('usage: reverse-proxy --target http://host:port [--port N] [--host H]\n');
  process.exit(64);
}
const target = new URL(values.target);

function forwarded(headers: IncomingHttpHeaders, peer: string | undefined): IncomingHttpHeaders {
  const prior = headers['x-forwarded-for'];
  const list = [prior === undefined ? [] : Array.isArray(prior) ? prior : [prior], peer ?? 'unknown'].flat();
  return { ...headers, 'x-forwarded-for': list.join(', ') };
}

const server = createServer((req, res) => {
  const upstream = request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: forwarded(req.headers, req.socket.remoteAddress),
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  req.pipe(upstream);
});

server.on('upgrade', (req, socket, head) => {
  const upstream = connect(Number(target.port), target.hostname, () => {
    const headers = forwarded(req.headers, req.socket.remoteAddress);
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (const [k, v] of Object.entries(headers)) for (const one of [v ?? []].flat()) lines.push(`${k}: ${one}`);
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  const end = () => (upstream.destroy(), socket.destroy());
  upstream.on('error', end);
  socket.on('error', end);
  upstream.on('close', end);
  socket.on('close', end);
});

server.listen(Number(values.port), values.host, () => {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: (server.address() as AddressInfo).port })}\n`);
});
// A test proxy: it drops whatever it carries at once when told to stop.
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
