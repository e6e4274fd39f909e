/**
 * A multipart upload that counts the bytes it has sent: `fetch` cannot tell how much of a body is
 * out, so where the page's `XMLHttpRequest` exists (a browser) the typed client posts files with it
 * and reports its `upload` progress events. The answer comes back as a `Response`, read as
 * `fetch`'s would be; a connection that fails before the server answers is `null`.
 */

/** How much of an upload's body has been sent. */
export type UploadProgress = (sent: number, total: number) => void;

/** Options of one request of the typed client. */
export interface CallInit {
  method?: string;
  body?: unknown;
  accept?: string;
  signal?: AbortSignal | undefined;
  onUploadProgress?: UploadProgress | undefined;
}

/** What of a browser's `XMLHttpRequest` an upload uses (the package's sources have no DOM types). */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  getResponseHeader(name: string): string | null;
  addEventListener(type: 'load' | 'error' | 'abort', listener: () => void): void;
  readonly upload: {
    addEventListener(
      type: 'progress',
      listener: (event: { lengthComputable: boolean; loaded: number; total: number }) => void,
    ): void;
  };
  readonly status: number;
  readonly responseText: string;
  abort(): void;
  send(body: FormData): void;
}

/** Whether this runtime can report upload progress (it has `XMLHttpRequest`). */
export function canReportUpload(): boolean {
  return typeof (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest === 'function';
}

/** POST `form` to `url` with `headers`, calling `onProgress` as its bytes are sent. */
export function postWithProgress(
  url: string,
  form: FormData,
  headers: Readonly<Record<string, string>>,
  onProgress: UploadProgress,
  signal?: AbortSignal,
): Promise<Response | null> {
  return new Promise((resolve) => {
    const xhr = new (globalThis as unknown as { XMLHttpRequest: new () => Xhr }).XMLHttpRequest();
    xhr.open('POST', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    });
    xhr.addEventListener('load', () =>
      resolve(
        new Response(xhr.responseText, {
          status: xhr.status,
          headers: { 'content-type': xhr.getResponseHeader('content-type') ?? 'application/json' },
        }),
      ),
    );
    xhr.addEventListener('error', () => resolve(null));
    xhr.addEventListener('abort', () => resolve(null));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
