// A static file server on 127.0.0.1 (random port) for the browser tests, serving the repository root.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.safetensors': 'application/octet-stream',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.txt': 'text/plain; charset=utf-8',
};

// requests: the path of every request, in order (a test can see whether something reached the network);
// refuse(path): true answers that path with 503, as a server that is down would.
export async function serve(root) {
  const requests = [];
  const control = { refuse: () => false };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    requests.push(url.pathname);
    if (control.refuse(url.pathname)) {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('refused by the test');
      return;
    }
    const file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'content-length': fs.statSync(file).size,
      'cache-control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  // close() also drops idle keep-alive connections, so that a test can take the server away (to go offline).
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    set refuse(fn) { control.refuse = fn ?? (() => false); },
    close: () => new Promise((r) => { server.close(r); server.closeAllConnections?.(); }),
  };
}
