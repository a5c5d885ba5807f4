// A sideways-scrolling box that says so: while more of its content lies to the right, the box gets
// data-more="right" (a fade over its right edge, in style.css) and its "scroll →" hint shows.
export function watchOverflow(box) {
  const scroller = box.querySelector('.scroller');
  const hint = box.querySelector('.scroll-hint');
  const update = () => {
    const more = scroller.scrollWidth - scroller.clientWidth - scroller.scrollLeft > 1;
    box.dataset.overflow = String(scroller.scrollWidth > scroller.clientWidth + 1);
    box.dataset.more = more ? 'right' : '';
    if (hint) hint.hidden = !more;
  };
  scroller.addEventListener('scroll', update, { passive: true });
  if ('ResizeObserver' in globalThis) new ResizeObserver(update).observe(scroller);
  update();
  return { update };
}
