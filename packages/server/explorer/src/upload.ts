/**
 * Uploads of files from the page with byte-level progress: `fetch` cannot tell how much of a body
 * has been sent, so the multipart routes (`POST /v1/indexes/:name/documents`, `POST /v1/indexes`)
 * are posted with XMLHttpRequest, whose `upload` progress events count the bytes sent. The answer
 * is the job, as the typed client's calls give it; a refusal is the same `GragApiError`.
 */
import { GragApiError } from './api.js';
import type { Job } from './types.js';

/** How much of an upload's body has been sent. */
export type UploadProgress = (sent: number, total: number) => void;

/** What to upload: the route, the form, and who hears the progress. */
export interface UploadRequest {
  /** The route, e.g. `/v1/indexes/notes/documents`. */
  path: string;
  form: FormData;
  token: string | undefined;
  onProgress: UploadProgress;
}

/** The `GragApiError` of a refused upload: the server's code and message, else the status line. */
function refusal(xhr: XMLHttpRequest, what: string): GragApiError {
  let code = 'http_error';
  let message = `${what} failed with HTTP ${xhr.status}`;
  try {
    const body = JSON.parse(xhr.responseText) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.message === 'string') message = body.error.message;
    if (typeof body.error?.code === 'string') code = body.error.code;
  } catch {
    // Not a JSON error body: keep the status line.
  }
  return new GragApiError(message, { status: xhr.status, code });
}

/** Post `request.form` to the page's server, reporting the bytes sent; resolves with the job (202). */
export function uploadWithProgress(request: UploadRequest): Promise<Job> {
  const what = `POST ${request.path}`;
  return new Promise<Job>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', request.path);
    xhr.setRequestHeader('accept', 'application/json');
    if (request.token) xhr.setRequestHeader('authorization', `Bearer ${request.token}`);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) request.onProgress(event.loaded, event.total);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status < 200 || xhr.status >= 300) return reject(refusal(xhr, what));
      try {
        resolve(JSON.parse(xhr.responseText) as Job);
      } catch {
        reject(
          new GragApiError(`${what}: the server's answer is not JSON.`, {
            status: xhr.status,
            code: 'http_error',
          }),
        );
      }
    });
    const broken = () =>
      reject(
        new GragApiError(`${what}: the connection failed before the server answered.`, {
          status: 0,
          code: 'network_error',
        }),
      );
    xhr.addEventListener('error', broken);
    xhr.addEventListener('abort', broken);
    xhr.send(request.form);
  });
}

/** `bytes` for people: `812 B`, `14.2 KB`, `3.1 MB`. */
export function byteSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
