// The Web Worker client (attend-client.js) with the real worker script (attend-worker.js) in this process: Node
// has no Web Worker, so a stand-in Worker hands each message, structured-cloned as postMessage does, to the
// worker script's onmessage a task later, and logs what crosses. The browser tests run the real thing; here the
// queue is observable: an aborted request that was still waiting is never sent, one the worker is running rejects
// at once and its late result is dropped, and the next request waits for the worker to finish.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { smallModel } from './lib/small_model.mjs';
import { Attend } from '../../wasm/attend.js';

const modelBytes = new Uint8Array(fs.readFileSync(smallModel('f32')));

const log = [];          // ['post', id, op, text] and ['reply', id, kind], in the order they happen
const workers = [];
let live = null;         // the worker script is one module: the newest stand-in owns it

class StandInWorker {
  terminated = false;
  constructor(url) {
    this.url = String(url);
    workers.push(this);
    live = this;
  }
  postMessage(message, transfer) {
    if (this.terminated) return;
    const data = structuredClone(message, { transfer });  // throws DataCloneError where a real worker would
    log.push(['post', data.id, data.op, data.text]);
    setTimeout(() => globalThis.self.onmessage({ data }), 0);
  }
  terminate() { this.terminated = true; }
}

globalThis.self = {
  postMessage(message) {
    const worker = live;
    const data = structuredClone(message);
    setTimeout(() => {
      if (worker.terminated) return;
      log.push(['reply', data.id, data.progress ? 'progress' : data.error !== undefined ? 'error' : 'result']);
      worker.onmessage({ data });
    }, 0);
  },
};
globalThis.Worker = StandInWorker;
await import('../../wasm/attend-worker.js');
const { AttendWorker } = await import('../../wasm/attend-client.js');

const greedy = { beam: 1, attention: false };
const direct = await Attend.load(modelBytes);
const expected = async (text) => (await direct.translate(text, greedy)).text;

test('an aborted request still waiting is never sent; the others run in order', async () => {
  const w = await AttendWorker.load(modelBytes.slice().buffer);
  assert.equal(w.info().sourceLanguage, 'en');
  assert.equal(w.info().source_language, 'en');
  log.length = 0;
  const reason = new Error('replaced');
  const b = new AbortController();
  const first = w.translate('A man walks.', greedy);
  const second = w.translate('A dog runs.', { ...greedy, signal: b.signal });
  const third = w.translate('Two kids play.', greedy);
  b.abort(reason);
  await assert.rejects(second, (e) => e === reason);
  assert.equal((await first).text, await expected('A man walks.'));
  assert.equal((await third).text, await expected('Two kids play.'));
  const posted = log.filter(([kind]) => kind === 'post').map(([, , , text]) => text);
  assert.deepEqual(posted, ['A man walks.', 'Two kids play.']);
  // One request at a time: the third is sent only after the first is answered.
  const firstId = log.find(([kind, , , text]) => kind === 'post' && text === 'A man walks.')[1];
  const answered = log.findIndex(([kind, id]) => kind === 'reply' && id === firstId);
  const thirdSent = log.findIndex(([kind, , , text]) => kind === 'post' && text === 'Two kids play.');
  assert.ok(answered >= 0 && answered < thirdSent, JSON.stringify(log));
  await w.dispose();
});

test('an aborted request the worker is running rejects at once; its late result is dropped', async () => {
  const w = await AttendWorker.load(modelBytes.slice().buffer);
  log.length = 0;
  const c = new AbortController();
  const running = w.translate('A woman sings.', { ...greedy, signal: c.signal });
  assert.equal(log.filter(([kind]) => kind === 'post').length, 1, 'the request was not sent at once');
  c.abort();
  await assert.rejects(running, (e) => e instanceof DOMException && e.name === 'AbortError');
  const runningId = log[0][1];
  assert.ok(!log.some(([kind, id]) => kind === 'reply' && id === runningId), 'the worker had already answered');
  // The next request gets its own result, not the aborted one's, and is sent after that one is answered.
  const next = await w.translate('Two dogs play in the snow.', greedy);
  assert.equal(next.text, await expected('Two dogs play in the snow.'));
  assert.deepEqual(next.sourceTokens, (await direct.translate('Two dogs play in the snow.', greedy)).sourceTokens);
  const lateAnswer = log.findIndex(([kind, id, what]) => kind === 'reply' && id === runningId && what === 'result');
  const nextSent = log.findIndex(([kind, , , text]) => kind === 'post' && text === 'Two dogs play in the snow.');
  assert.ok(lateAnswer >= 0 && lateAnswer < nextSent, JSON.stringify(log));
  // Already aborted: nothing is sent.
  const before = log.length;
  await assert.rejects(w.translate('A cat.', { signal: AbortSignal.abort('gone') }), (e) => e === 'gone');
  assert.equal(log.length, before);
  await w.dispose();
});

test('load: aborted before, nothing starts; aborted during, the worker is ended', async () => {
  const reason = new Error('closed the tab');
  const count = workers.length;
  await assert.rejects(AttendWorker.load(modelBytes.slice().buffer, { signal: AbortSignal.abort(reason) }), (e) => e === reason);
  assert.equal(workers.length, count, 'a worker was started for an aborted load');
  const c = new AbortController();
  const loading = AttendWorker.load(modelBytes.slice().buffer, { signal: c.signal, cache: false });
  const worker = workers.at(-1);
  assert.equal(log.at(-1)[2], 'load');
  c.abort(reason);
  await assert.rejects(loading, (e) => e === reason);
  assert.equal(worker.terminated, true, 'the worker of an aborted load was left running');
});

test('arrays, error kinds, camelCase info and option bounds come through the worker as from attend.js', async () => {
  const w = await AttendWorker.load(modelBytes.slice().buffer);
  const texts = ['A man walks.', 'Two dogs play in the snow.', 'A woman sings.'];
  const all = await w.translate(texts, greedy);
  assert.deepEqual(all.map((r) => r.text), await direct.translate(texts, greedy).then((rs) => rs.map((r) => r.text)));
  assert.deepEqual(all.map((r) => r.sourceTokens), (await direct.translate(texts, greedy)).map((r) => r.sourceTokens));
  assert.deepEqual(await w.translate([]), []);
  await assert.rejects(w.translate(['A dog.', 3]), (e) => e instanceof TypeError && /texts\[1\] must be a string/.test(e.message));
  await assert.rejects(w.translate('A dog.', { beam: 0 }), (e) => e instanceof RangeError && /beam must be between 1 and 64/.test(e.message));
  await assert.rejects(w.translate('A dog.', { signal: 'x' }), /option signal must be an AbortSignal/);
  const info = w.info();
  assert.deepEqual(info, direct.info());
  assert.deepEqual(w.optionBounds(), direct.optionBounds());  // what the page bounds its beam box with
  assert.equal(w.loadedFrom, 'memory');
  assert.equal(info.decoding.lengthPenalty, info.decoding.length_penalty);
  await w.dispose();
  assert.equal(workers.at(-1).terminated, true);
});
