// Types of the Web Worker client (attend-client.js, the package's ./worker): attend.js's API, run in a worker.
import type {
  DocumentTranslation, LoadOptions, ModelInfo, ModelSource, OptionBounds, TranslateOptions, Translation,
} from './attend.js';

export interface WorkerLoadOptions extends LoadOptions {
  /** The worker script; default: attend-worker.js beside attend-client.js. */
  workerUrl?: URL;
}

/**
 * Requests go to the worker one at a time, in order. Aborting one that is still waiting takes it out of the queue;
 * aborting the one the worker is running rejects at once and its result is dropped when it arrives.
 */
export declare class AttendWorker {
  /** An abort (options.signal) during the load ends the worker, and with it the download. */
  static load(source: string | URL | ArrayBuffer | Uint8Array, options?: WorkerLoadOptions): Promise<AttendWorker>;
  /** Where the worker's load found the model (the worker uses the same Cache API cache, 'attend-models'). */
  readonly loadedFrom: ModelSource;
  info(): ModelInfo;
  /** The worker's translator's optionBounds(), as the load returned them. */
  optionBounds(): Record<string, OptionBounds>;
  translate(text: string, options?: TranslateOptions | null): Promise<Translation>;
  translate(texts: readonly string[], options?: TranslateOptions | null): Promise<Translation[]>;
  translateDocument(text: string, options?: TranslateOptions | null): Promise<DocumentTranslation>;
  dispose(): Promise<void>;
}

export default AttendWorker;
