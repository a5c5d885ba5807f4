// Registers the service worker (sw.js) that keeps the demo usable offline after the first visit. Pages work
// without it (a browser without service workers, a file:// page, or ?sw=0 in the address).
export function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  if (new URLSearchParams(location.search).get('sw') === '0') return;
  navigator.serviceWorker.register(new URL('./sw.js', import.meta.url), { type: 'classic' })
    .then((registration) => { document.body.dataset.serviceWorker = registration.active ? 'active' : 'installing'; })
    .catch((e) => console.warn(`offline use is not available: ${e.message}`));
}
