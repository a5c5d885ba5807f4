// Serves the demo for `npm start`: the pages (web/), the WebAssembly modules (wasm/) and the training logs of local
// runs (runs/**/*.jsonl, which web/runs.html plots), nothing else of the repository.
//   node scripts/serve.mjs            http://localhost:8080/  (redirects to /web/)
//   PORT=3000 HOST=0.0.0.0 node scripts/serve.mjs
// Also a module: serveHandler() answers requests for another server (the browser tests' one).
//
// A request is answered from a file only when every segment of its decoded path is a plain name (no dot-file, no
// '..', no NUL or slash inside a segment, at most 255 bytes) under an allowed top folder, and the file's real path
// (symbolic links followed) stays there too: a link in web/ to /etc or to .git serves nothing. Every failure is a
// 4xx or 5xx answer; no request can stop the server.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Top folder -> which of its files are served.
export const SERVED = {
  web: () => true,
  wasm: () => true,
  runs: (file) => file.endsWith('.jsonl'),
};

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.jsonl': 'application/jsonl; charset=utf-8',
  '.wasm': 'application/wasm', '.safetensors': 'application/octet-stream', '.png': 'image/png',
  '.svg': 'image/svg+xml', '.txt': 'text/plain; charset=utf-8', '.md': 'text/plain; charset=utf-8',
  '.ico': 'image/x-icon',
};

// On every answer, errors included: no content sniffing (a .md or .jsonl is never run as a page), and cross-origin
// isolation, so that the page may use SharedArrayBuffer and a precise performance.now().
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
};

const MAX_SEGMENT_BYTES = 255;  // NAME_MAX: a longer name can only fail (ENAMETOOLONG)
const MAX_PATH_BYTES = 2048;

function send(res, status, text, headers = {}) {
  if (res.headersSent) return res.destroy();
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

class Refusal extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// The decoded segments of a request's path, each a plain file or folder name.
function pathSegments(target) {
  if (!target.startsWith('/')) throw new Refusal(400, 'bad request target');
  const rawPath = target.split(/[?#]/, 1)[0];
  if (Buffer.byteLength(rawPath) > MAX_PATH_BYTES) throw new Refusal(414, 'path too long');
  const segments = [];
  for (const raw of rawPath.split('/').slice(1)) {
    let name;
    try {
      name = decodeURIComponent(raw);
    } catch {
      throw new Refusal(400, 'bad percent-encoding in the path');
    }
    if (/[\0/\\]/.test(name)) throw new Refusal(400, 'bad character in the path');
    if (Buffer.byteLength(name) > MAX_SEGMENT_BYTES) throw new Refusal(400, 'path segment too long');
    if (name.startsWith('.')) throw new Refusal(404, 'not found');  // '.', '..', .git, any dot-file
    segments.push(name);
  }
  return segments;
}

// The real path of `file` when it is inside an allowed top folder of `realRoot` and every name on the way is plain;
// null otherwise.
function allowedRealPath(realRoot, file, folders) {
  const relative = path.relative(realRoot, file);
  if (relative === '' || path.isAbsolute(relative)) return null;
  const names = relative.split(path.sep);
  if (!Object.hasOwn(folders, names[0]) || names.some((n) => n.startsWith('.'))) return null;
  return file;
}

function etagOf(stat) {
  return `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
}

function notModified(req, etag, stat) {
  const match = req.headers['if-none-match'];
  if (match !== undefined) {
    const weak = (tag) => tag.trim().replace(/^W\//, '');
    return match.trim() === '*' || match.split(',').some((tag) => weak(tag) === weak(etag));
  }
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && Math.floor(stat.mtimeMs / 1000) * 1000 <= since;
}

// A request handler serving the allowed top folders of `root` (folders: top folder -> test on its relative path).
export function serveHandler({ root = repository, folders = SERVED } = {}) {
  const realRootPromise = fs.promises.realpath(root);
  return async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'only GET and HEAD', { allow: 'GET, HEAD' });
      const segments = pathSegments(req.url ?? '');
      if (segments.length === 1 && segments[0] === '') return send(res, 302, 'see /web/', { location: '/web/' });
      if (!Object.hasOwn(folders, segments[0])) return send(res, 404, 'not found');
      const realRoot = await realRootPromise;
      let real;
      try {
        real = await fs.promises.realpath(path.join(realRoot, ...segments));
      } catch {
        // ENOENT, ENOTDIR (a file taken for a folder), ELOOP, EACCES...: nothing to serve there.
        return send(res, 404, 'not found');
      }
      if (!allowedRealPath(realRoot, real, folders)) return send(res, 404, 'not found');
      let stat = await fs.promises.stat(real);
      if (stat.isDirectory()) {
        const pathname = req.url.split(/[?#]/, 1)[0];
        if (!pathname.endsWith('/')) {
          const query = req.url.slice(pathname.length);
          return send(res, 301, 'moved', { location: pathname + '/' + (query.startsWith('?') ? query : '') });
        }
        try {
          real = await fs.promises.realpath(path.join(real, 'index.html'));
          stat = await fs.promises.stat(real);
        } catch {
          return send(res, 404, 'not found');
        }
        if (!allowedRealPath(realRoot, real, folders)) return send(res, 404, 'not found');
      }
      const relative = path.relative(realRoot, real);
      const top = relative.split(path.sep)[0];
      if (!stat.isFile() || !folders[top](relative)) return send(res, 404, 'not found');
      const etag = etagOf(stat);
      const headers = {
        ...SECURITY_HEADERS,
        'cache-control': 'no-cache',
        etag,
        'last-modified': stat.mtime.toUTCString(),
      };
      if (notModified(req, etag, stat)) {
        res.writeHead(304, headers);
        return res.end();
      }
      const file = await fs.promises.open(real, 'r');
      res.writeHead(200, {
        ...headers,
        'content-type': TYPES[path.extname(real)] || 'application/octet-stream',
        'content-length': stat.size,
      });
      if (req.method === 'HEAD') {
        await file.close();
        return res.end();
      }
      // pipeline closes the file when the client goes away, and ends the answer when the read fails.
      pipeline(file.createReadStream(), res, () => {});
    } catch (e) {
      if (e instanceof Refusal) return send(res, e.status, e.message);
      console.error(`serve: ${req.method} ${JSON.stringify(req.url)}: ${e.message}`);
      send(res, 500, 'internal error');
    }
  };
}

// Starts the server; resolves once it listens. port 0: a free port (server.address().port).
export function startServer({ root = repository, port = 8080, host = '127.0.0.1', folders = SERVED } = {}) {
  const server = http.createServer(serveHandler({ root, folders }));
  // A request Node cannot even parse: answered and closed, never an exception.
  server.on('clientError', (error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const port = Number(process.env.PORT ?? 8080);  // 0: any free port
  const host = process.env.HOST || '127.0.0.1';
  startServer({ port, host }).then((server) => {
    const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
    const base = `http://${shown}:${server.address().port}/web/`;
    console.log(`Attend demo: ${base}  (attention lab: ${base}lab.html; serving ${Object.keys(SERVED).join(', ')} ` +
      `of ${repository}; Ctrl-C stops)`);
  }, (e) => {
    console.error(e.code === 'EADDRINUSE' ? `port ${port} is in use: try PORT=8081 npm start` : `cannot serve: ${e.message}`);
    process.exit(1);
  });
}
