// Where web/train.html leaves a model it trained for the demo to translate with: the model cache of attend.js
// ('attend-models', storeModelBytes / storedModelBytes) under a same-origin URL that no server has, one per
// preset, so that training a preset again replaces its model. index.html?trained=<preset> reads it back.
export const trainedModelUrl = (preset) => new URL(`trained/${encodeURIComponent(preset)}.safetensors`, import.meta.url);
