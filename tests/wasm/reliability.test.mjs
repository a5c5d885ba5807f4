// attend.js under bad luck and hostile input: a heap that cannot hold what is asked of it, a NUL inside a text,
// downloads that never end, stall, are larger than allowed or are not models at all, and hundreds of queued calls
// that must leave the event loop free and stop when their signal aborts. Downloads go to a local HTTP server through
// Node's real fetch.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { root } from './lib/paths.mjs';
import { Attend } from '../../wasm/attend.js';

const modelFile = path.join(root, 'web/models/multi30k-en-de-cased.safetensors');
const modelBytes = new Uint8Array(fs.readFileSync(modelFile));
const greedy = { beam: 1, attention: false };

const closed = new Map();  // url -> whether the client went away before the server finished
const server = http.createServer((req, res) => {
  const { pathname } = new URL(req.url, 'http://x');
  res.on('close', () => closed.set(pathname, !res.writableFinished));
  if (pathname === '/endless') {
    // No length, and bytes for ever (a safetensors-looking start so that only the size stops it).
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write(Buffer.from(modelBytes.subarray(0, 65536)));
    const timer = setInterval(() => res.write(Buffer.alloc(65536, 1)), 1);
    res.on('close', () => clearInterval(timer));
  } else if (pathname === '/html') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!DOCTYPE html><html><body>' + 'Not the model you wanted. '.repeat(4000) + '</body></html>');
  } else if (pathname === '/claims-huge') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(3 * 1024 ** 3) });
    res.write(Buffer.from(modelBytes.subarray(0, 1024)));  // then nothing: the length alone must stop it
  } else if (pathname === '/stalls') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': modelBytes.byteLength });
    res.write(Buffer.from(modelBytes.subarray(0, 4096)));  // and never more
  } else if (pathname === '/longer') {
    // A model followed by more bytes than its header declares, with no length to tell.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write(Buffer.from(modelBytes));
    const timer = setInterval(() => res.write(Buffer.alloc(65536, 7)), 1);
    res.on('close', () => clearInterval(timer));
  } else if (pathname === '/model') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': modelBytes.byteLength });
    res.end(Buffer.from(modelBytes));
  } else {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
after(() => server.close());

const translator = await Attend.load(modelBytes);
const reference = (await translator.translate('A dog runs on the beach.', greedy)).text;

// The server has seen the client leave (a download that was stopped, not read to its end and thrown away).
async function clientLeft(pathname) {
  for (let i = 0; i < 200 && !closed.has(pathname); i++) await new Promise((r) => setTimeout(r, 10));
  return closed.get(pathname) === true;
}

test('a model larger than the heap can hold is a RangeError, and the module goes on working', async () => {
  // 2 GiB + 16 bytes: more than the module's heap may ever grow to, so malloc gives 0. The zeroed buffer is
  // never written, so it costs address space, not memory.
  const huge = new Uint8Array(2 ** 31 + 16);
  await assert.rejects(Attend.load(huge, { name: 'huge.safetensors' }),
    (e) => e instanceof RangeError && /huge\.safetensors.*not enough WebAssembly memory for 2147483664 bytes/.test(e.message));
  // Nothing was written over the module's memory: the translator loaded before still translates, and a new load works.
  assert.equal((await translator.translate('A dog runs on the beach.', greedy)).text, reference);
  const again = await Attend.load(modelBytes);
  assert.equal((await again.translate('A dog runs on the beach.', greedy)).text, reference);
  again.dispose();
});

test('a NUL inside a text is read as a space and said, never the end of the text', async () => {
  const withNul = await translator.translate('A man\0 walks down the street.', greedy);
  const withSpace = await translator.translate('A man  walks down the street.', greedy);
  assert.equal(withNul.text, withSpace.text);
  assert.ok(withNul.warnings.includes('1 NUL character in the text, read as a space'), withNul.warnings.join('; '));
  assert.ok(!withSpace.warnings.some((w) => /NUL/.test(w)));

  // A document keeps every line after the NUL, and its spans still index the text as given.
  const text = 'A dog runs.\0\nTwo men play soccer.\nA woman reads a book.';
  const doc = await translator.translateDocument(text, greedy);
  assert.equal(doc.sentences.length, 3);
  assert.equal(text.slice(doc.sentences[2].begin, doc.sentences[2].end), 'A woman reads a book.');
  assert.ok(doc.warnings.some((w) => /1 NUL character/.test(w)));
});

test('downloads: over maxBytes, an HTML page, a length claimed too large, a stall, more than the header declares', { timeout: 60000 }, async () => {
  const mib = 1024 * 1024;
  await assert.rejects(Attend.load(`${base}/endless`, { cache: false, maxBytes: 8 * mib }),
    /cannot download .*\/endless: .*over the 8388608 bytes allowed \(option maxBytes\)/);
  assert.ok(await clientLeft('/endless'), 'the endless download was not stopped');

  await assert.rejects(Attend.load(`${base}/html`, { cache: false }),
    /\/html is not a safetensors model file: it begins with the text '<!DOCTYP' \(an HTML page or a text file\?\)/);

  await assert.rejects(Attend.load(`${base}/claims-huge`, { cache: false }),
    /cannot download .*\/claims-huge: 3221225472 bytes, over the 536870912 allowed \(option maxBytes\)/);

  const started = Date.now();
  await assert.rejects(Attend.load(`${base}/stalls`, { cache: false, stallTimeoutMs: 300 }),
    /cannot download .*\/stalls: no data for 0.3 s \(the download stalled\)/);
  assert.ok(Date.now() - started < 20000);
  assert.ok(await clientLeft('/stalls'), 'the stalled download was not closed');

  await assert.rejects(Attend.load(`${base}/longer`, { cache: false }),
    new RegExp(`cannot download .*/longer: more than the ${modelBytes.byteLength} bytes its header declares`));
  assert.ok(await clientLeft('/longer'));

  // The limits leave a real model alone.
  const t = await Attend.load(`${base}/model`, { cache: false, maxBytes: modelBytes.byteLength, stallTimeoutMs: 5000 });
  assert.equal((await t.translate('A dog runs on the beach.', greedy)).text, reference);
  t.dispose();

  for (const bad of [0, -1, 1.5, 'big', Infinity]) {
    await assert.rejects(Attend.load(`${base}/model`, { maxBytes: bad }), /option maxBytes must be a whole number of bytes above 0/);
  }
  await assert.rejects(Attend.load(`${base}/model`, { stallTimeoutMs: 0 }), /option stallTimeoutMs must be a number of milliseconds above 0/);
});

test('files: a device that never ends and a file over maxBytes are refused before reading', async () => {
  await assert.rejects(Attend.load('/dev/zero'), /cannot read \/dev\/zero: not a regular file/);
  const big = path.join(os.tmpdir(), `attend-big-${process.pid}.safetensors`);
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 64 * 1024 * 1024);  // sparse: no disk used
  try {
    await assert.rejects(Attend.load(big, { maxBytes: 1024 * 1024 }), /67108864 bytes, over the 1048576 allowed \(option maxBytes\)/);
  } finally {
    fs.rmSync(big);
  }
});

test('hundreds of queued calls leave the event loop free, resolve in call order, and stop when their signal aborts', async () => {
  const texts = Array.from({ length: 200 }, (_, i) => `A dog number ${i} runs on the beach.`);

  // Without a signal: a timer set going before the calls runs between them, not after the last.
  let ticks = 0;
  const interval = setInterval(() => ticks++, 5);
  const order = [];
  const all = texts.map((t, i) => translator.translate(t, greedy).then(() => { order.push(i); return ticks; }));
  const ticksAtEnd = await Promise.all(all);
  clearInterval(interval);
  assert.deepEqual(order, texts.map((_, i) => i), 'the calls resolved out of order');
  assert.ok(ticksAtEnd[ticksAtEnd.length - 1] > ticksAtEnd[0], 'no timer ran while the calls were queued');

  // One signal shared by all, aborted by a timer: the timer fires while calls are still waiting, and every call that
  // had not started rejects with the reason; those that ran form a prefix of the calls, in order.
  const controller = new AbortController();
  const reason = new Error('the page changed');
  const outcomes = texts.map((t) => translator.translate(t, { ...greedy, signal: controller.signal })
    .then(() => 'done', (e) => (e === reason ? 'aborted' : e)));
  setTimeout(() => controller.abort(reason), 30);
  const settled = await Promise.all(outcomes);
  const done = settled.filter((o) => o === 'done').length;
  assert.ok(settled.every((o) => o === 'done' || o === 'aborted'), String(settled.find((o) => o !== 'done' && o !== 'aborted')));
  assert.ok(done >= 1 && done < texts.length, `${done} of ${texts.length} done: the abort did not land between the calls`);
  assert.deepEqual(settled, texts.map((_, i) => (i < done ? 'done' : 'aborted')));

  // After all that the translator is as before.
  assert.equal((await translator.translate('A dog runs on the beach.', greedy)).text, reference);
});

test('a refused connection and a connection cut mid-download say so, with the reason behind fetch()\'s words', async () => {
  // A port nothing listens on: the system's reason, not only "fetch failed".
  const closedServer = http.createServer();
  await new Promise((resolve) => closedServer.listen(0, '127.0.0.1', resolve));
  const port = closedServer.address().port;
  await new Promise((resolve) => closedServer.close(resolve));
  await assert.rejects(Attend.load(`http://127.0.0.1:${port}/model`, { cache: false }),
    /cannot download http:\/\/127\.0\.0\.1:\d+\/model: fetch failed: ECONNREFUSED/);

  // A server that promises the whole model and hangs up after 64 KiB.
  const cut = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': modelBytes.byteLength });
    res.write(Buffer.from(modelBytes.subarray(0, 65536)), () => res.destroy());
  });
  await new Promise((resolve) => cut.listen(0, '127.0.0.1', resolve));
  try {
    await assert.rejects(Attend.load(`http://127.0.0.1:${cut.address().port}/model`, { cache: false }),
      new RegExp(`the connection ended after \\d+ of ${modelBytes.byteLength} bytes`));
  } finally {
    cut.close();
  }
});
