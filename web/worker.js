// The translation worker, started from web/ so that it lies inside the service worker's scope (offline use):
// it is wasm/attend-worker.js itself.
import '../wasm/attend-worker.js';
