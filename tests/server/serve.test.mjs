// The demo server (scripts/serve.mjs) on a free loopback port: hostile requests get a 4xx answer and leave it
// serving; only the allowed top folders are served, never a dot-file or a file that a symbolic link takes outside
// them; every answer carries nosniff and the cross-origin isolation headers; ETag and Last-Modified give 304s.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function get(base, target, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = http.request({ host: url.hostname, port: url.port, path: target, method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

// Bytes Node's client would refuse to send; the answer's status line.
function raw(base, bytes) {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const socket = net.connect(Number(url.port), url.hostname, () => socket.end(bytes));
    let text = '';
    socket.on('data', (c) => { text += c; });
    socket.on('end', () => resolve(text.split('\r\n')[0]));
    socket.on('error', reject);
  });
}

function checkHeaders(r, what) {
  assert.equal(r.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin', what);
  assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp', what);
}

// A scratch repository: allowed folders, a .git, files beside them, and links out of them.
let dir, outside, server, base;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-serve-'));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'attend-serve-outside-'));
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  write('web/index.html', '<p>demo</p>');
  write('web/app.js', 'export {};');
  write('web/notes.md', '# <script>alert(1)</script>');
  write('web/.hidden', 'secret');
  write('wasm/dist/attend-core-simd.wasm', 'wasm');
  write('runs/en-de/train.jsonl', '{"event":"step"}\n');
  write('runs/en-de/checkpoint-00000001.safetensors', 'weights');
  write('README.md', 'readme');
  write('.git/config', '[core]');
  write('build-wasm/inside.txt', 'build');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'web', 'link-out.txt'));
  fs.symlinkSync(outside, path.join(dir, 'web', 'folder-out'));
  fs.symlinkSync(path.join(dir, '.git', 'config'), path.join(dir, 'web', 'link-git'));
  fs.symlinkSync(path.join(dir, 'build-wasm'), path.join(dir, 'wasm', 'build'));
  fs.symlinkSync(path.join(dir, 'web', 'app.js'), path.join(dir, 'wasm', 'app-link.js'));  // stays inside: served
  fs.symlinkSync('loop', path.join(dir, 'web', 'loop'));
  server = await startServer({ root: dir, port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server?.close();
  server?.closeAllConnections?.();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

test('serve: hostile paths are answered 4xx and the server goes on serving', async () => {
  const long = 'a'.repeat(256);
  const hostile = [
    '/README.md/x', '/web/index.html/x', '/web/%00', '/web/a%00b.js', `/web/${long}`, `/web/${long}/x`,
    `/web/${'%C3%A9'.repeat(200)}`, '/web/%E0%A4%A', '/web/%2e%2e/README.md', '/web/..%2fREADME.md',
    '/web/%2F..%2F..%2Fetc%2Fpasswd', '/web/..\\README.md', '/../../etc/passwd', '/web/loop', '/web/loop/x',
    `/web/${'x/'.repeat(2000)}`, '//etc/passwd', '/%00', '/web/index.html%00.js',
  ];
  for (const target of hostile) {
    const r = await get(base, target);
    assert.ok(r.status >= 400 && r.status < 500, `${target}: ${r.status}`);
    checkHeaders(r, target);
  }
  for (const bytes of ['GET /web/\0 HTTP/1.1\r\nHost: x\r\n\r\n', 'GET web HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET http://evil/web/ HTTP/1.1\r\nHost: x\r\n\r\n', 'BREW / HTTP/1.1\r\n\r\n', '\x16\x03\x01garbage\r\n\r\n']) {
    const status = await raw(base, bytes);
    assert.match(status, /^HTTP\/1\.1 4\d\d/, JSON.stringify(bytes));
  }
  assert.equal((await get(base, '/web/app.js')).status, 200, 'still serving');
  assert.equal((await get(base, '/web/app.js', { method: 'DELETE' })).status, 405);
});

test('serve: only the allowed folders, no dot-files, no link out of them', async () => {
  const refused = [
    '/README.md', '/.git/config', '/.git/', '/web/.hidden', '/web/%2Ehidden', '/build-wasm/inside.txt',
    '/web/link-out.txt', '/web/folder-out/secret.txt', '/web/link-git', '/wasm/build/inside.txt',
    '/runs/en-de/checkpoint-00000001.safetensors', '/runs/', '/package.json',
  ];
  for (const target of refused) {
    const r = await get(base, target);
    assert.equal(r.status, 404, target);
    assert.doesNotMatch(r.body, /outside|secret|\[core\]|build|weights|readme/, target);
  }
  const served = {
    '/web/': '<p>demo</p>', '/web/index.html': '<p>demo</p>', '/web/app.js': 'export {};',
    '/wasm/dist/attend-core-simd.wasm': 'wasm', '/runs/en-de/train.jsonl': '{"event":"step"}\n',
    '/wasm/app-link.js': 'export {};', '/web/index.html?x=1': '<p>demo</p>',
  };
  for (const [target, body] of Object.entries(served)) {
    const r = await get(base, target);
    assert.equal(r.status, 200, target);
    assert.equal(r.body, body, target);
    checkHeaders(r, target);
  }
  assert.equal((await get(base, '/web/app.js')).headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal((await get(base, '/web/notes.md')).headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal((await get(base, '/wasm/dist/attend-core-simd.wasm')).headers['content-type'], 'application/wasm');
  const root = await get(base, '/');
  assert.equal(root.status, 302);
  assert.equal(root.headers.location, '/web/');
  const folder = await get(base, '/web?x=1');
  assert.equal(folder.status, 301);
  assert.equal(folder.headers.location, '/web/?x=1');
  const head = await get(base, '/web/app.js', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-length'], '10');
  assert.equal(head.body, '');
});

test('serve: ETag and Last-Modified, and 304 when the copy is current', async () => {
  const first = await get(base, '/web/app.js');
  assert.ok(first.headers.etag);
  assert.ok(first.headers['last-modified']);
  const byTag = await get(base, '/web/app.js', { headers: { 'if-none-match': first.headers.etag } });
  assert.equal(byTag.status, 304);
  assert.equal(byTag.body, '');
  assert.equal(byTag.headers.etag, first.headers.etag);
  checkHeaders(byTag, '304');
  const byList = await get(base, '/web/app.js', { headers: { 'if-none-match': `"other", ${first.headers.etag}` } });
  assert.equal(byList.status, 304);
  const byDate = await get(base, '/web/app.js', { headers: { 'if-modified-since': first.headers['last-modified'] } });
  assert.equal(byDate.status, 304);
  const stale = await get(base, '/web/app.js', { headers: { 'if-none-match': '"other"' } });
  assert.equal(stale.status, 200);
  const older = await get(base, '/web/app.js', { headers: { 'if-modified-since': new Date(0).toUTCString() } });
  assert.equal(older.status, 200);
  // A changed file gets another tag.
  const file = path.join(dir, 'web', 'app.js');
  fs.writeFileSync(file, 'export const x = 1;');
  fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
  const changed = await get(base, '/web/app.js', { headers: { 'if-none-match': first.headers.etag } });
  assert.equal(changed.status, 200);
  assert.equal(changed.body, 'export const x = 1;');
  assert.notEqual(changed.headers.etag, first.headers.etag);
});

test('serve: `node scripts/serve.mjs` on the repository itself refuses .git, README.md and build trees', async () => {
  const child = spawn(process.execPath, [path.join(repository, 'scripts', 'serve.mjs')],
    { env: { ...process.env, PORT: '0', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
        if (m) resolve(`http://127.0.0.1:${m[1]}`);
      });
      child.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
    });
    for (const target of ['/.git/config', '/.git/HEAD', '/README.md', '/README.md/x', '/web/%00', `/web/${'b'.repeat(300)}`,
      '/build-wasm/wasm-include/nlohmann/json.hpp', '/build/CMakeCache.txt', '/scripts/serve.mjs', '/web/../README.md']) {
      const r = await get(url, target);
      assert.ok(r.status >= 400 && r.status < 500, `${target}: ${r.status}`);
    }
    const page = await get(url, '/web/index.html');
    assert.equal(page.status, 200);
    checkHeaders(page, '/web/index.html');
    assert.equal((await get(url, '/wasm/attend.js')).status, 200);
    assert.equal(child.exitCode, null, 'still running');
  } finally {
    child.kill();
  }
});
