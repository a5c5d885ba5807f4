// Serves the repository root as static files (the demo is /web/, and it imports ../wasm/), for `npm start`.
//   node scripts/serve.mjs            http://localhost:8080/  (redirects to /web/)
//   PORT=3000 HOST=0.0.0.0 node scripts/serve.mjs
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.PORT || 8080);
const host = process.env.HOST || '127.0.0.1';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm',
  '.safetensors': 'application/octet-stream', '.png': 'image/png', '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8', '.md': 'text/plain; charset=utf-8', '.ico': 'image/x-icon',
};

function send(res, status, text, headers = {}) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'only GET and HEAD', { allow: 'GET, HEAD' });
  let url;
  try {
    url = new URL(req.url, 'http://localhost');
  } catch {
    return send(res, 400, 'bad request');
  }
  if (url.pathname === '/') return send(res, 302, 'see /web/', { location: '/web/' });
  let file;
  try {
    file = path.join(root, decodeURIComponent(url.pathname));
  } catch {
    return send(res, 400, 'bad path');
  }
  if (file !== root && !file.startsWith(root + path.sep)) return send(res, 403, 'outside the served folder');
  let stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat?.isDirectory()) {
    if (!url.pathname.endsWith('/')) return send(res, 301, 'moved', { location: url.pathname + '/' + url.search });
    file = path.join(file, 'index.html');
    stat = fs.statSync(file, { throwIfNoEntry: false });
  }
  if (!stat?.isFile()) return send(res, 404, `not found: ${url.pathname}`);
  res.writeHead(200, {
    'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
    'content-length': stat.size,
    'cache-control': 'no-cache',
  });
  if (req.method === 'HEAD') return res.end();
  fs.createReadStream(file).on('error', () => res.destroy()).pipe(res);
});

server.on('error', (e) => {
  console.error(e.code === 'EADDRINUSE' ? `port ${port} is in use: try PORT=8081 npm start` : `cannot serve: ${e.message}`);
  process.exit(1);
});
server.listen(port, host, () => {
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const base = `http://${shown}:${server.address().port}/web/`;
  console.log(`Attend demo: ${base}  (attention lab: ${base}lab.html; serving ${root}; Ctrl-C stops)`);
});
