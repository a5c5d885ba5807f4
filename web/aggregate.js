// Attention across layers, for the views beside the single layers: the mean of the layers, and attention rollout
// (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"). Rollout follows attention through the
// residual connections: each layer's map (its heads averaged, or one head) is mixed half and half with the identity
// (the residual path), and the layers are multiplied from the first up, so that row i says how much of position
// i's representation at the top comes from each input position. It is defined where a layer's keys are the
// previous layer's queries, i.e. self-attention (square maps); cross attention's keys are the encoder's output.

// maps: { layers: [layer][head] Float32Array rows x cols, shape: [layers, heads, rows, cols] }; head: an index or
// 'mean'. One layer's map as rows x cols.
export function layerMap(maps, layer, head) {
  const [, heads, rows, cols] = maps.shape;
  if (head !== 'mean') return maps.layers[layer][Math.min(head, heads - 1)];
  const mean = new Float32Array(rows * cols);
  for (let h = 0; h < heads; h++) {
    const m = maps.layers[layer][h];
    for (let i = 0; i < m.length; i++) mean[i] += m[i] / heads;
  }
  return mean;
}

// The mean over every layer of layerMap: rows still sum to 1.
export function meanOfLayers(maps, head) {
  const [layers, , rows, cols] = maps.shape;
  const mean = new Float64Array(rows * cols);
  for (let l = 0; l < layers; l++) {
    const m = layerMap(maps, l, head);
    for (let i = 0; i < m.length; i++) mean[i] += m[i] / layers;
  }
  return Float32Array.from(mean);
}

// Whether maps can be rolled out at all (square). A cross-attention map may be square by chance: the caller knows
// the kind, and offers rollout for self-attention only.
export const canRollout = (maps) => maps.shape[2] === maps.shape[3];

// Attention rollout over every layer: R = Â_L ··· Â_1 with Â_l = 0.5 A_l + 0.5 I, each row of Â_l normalized to 1
// (a head's rows already sum to 1; normalizing keeps masked or rounded rows honest). Computed in double precision.
export function rollout(maps, head) {
  const [layers, , n, cols] = maps.shape;
  if (n !== cols) throw new Error(`attention rollout needs square maps (self-attention), not ${n} x ${cols}`);
  let r = new Float64Array(n * n);
  for (let i = 0; i < n; i++) r[i * n + i] = 1;
  for (let l = 0; l < layers; l++) {
    const a = layerMap(maps, l, head);
    const mixed = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < n; j++) sum += (mixed[i * n + j] = 0.5 * a[i * n + j] + (i === j ? 0.5 : 0));
      for (let j = 0; j < n; j++) mixed[i * n + j] /= sum;
    }
    // The new layer reads the rollout so far: R <- Â_l R.
    const next = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < n; k++) {
        const w = mixed[i * n + k];
        if (w === 0) continue;
        for (let j = 0; j < n; j++) next[i * n + j] += w * r[k * n + j];
      }
    }
    r = next;
  }
  return Float32Array.from(r);
}
