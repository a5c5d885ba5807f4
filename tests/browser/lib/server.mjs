// The demo server's request handler (scripts/serve.mjs: its allow-list, headers and caching) on 127.0.0.1 at a
// random port for the browser tests, which also serve their own pages (tests/) and test models (build/).
import http from 'node:http';
import { SERVED, serveHandler } from '../../../scripts/serve.mjs';

const any = () => true;

// requests: the path of every request, in order (a test can see whether something reached the network);
// refuse(path): true answers that path with 503, as a server that is down would.
export async function serve(root) {
  const requests = [];
  const control = { refuse: () => false };
  const handle = serveHandler({ root, folders: { ...SERVED, tests: any, build: any } });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    requests.push(url.pathname);
    if (control.refuse(url.pathname)) {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('refused by the test');
      return;
    }
    handle(req, res);
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
