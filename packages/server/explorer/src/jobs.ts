/**
 * The page's one line of job status: what the last write is doing (queued, running with the
 * method's progress, done with the new version, or failed with the server's message), followed
 * through the job's Server-Sent Events (`GET /v1/jobs/:id/events`), or `GET /v1/jobs/:id` when the
 * stream breaks.
 */
import { failureMessage, type GragClient } from './api.js';
import type { Job } from './types.js';
import { byteSize } from './upload.js';

/** What a job does, in words: "Adding 2 files to notes". */
export type JobLabel = string;

/** The line of the job status, `#job-status`. */
export class JobLine {
  private readonly line = document.querySelector<HTMLElement>('#job-status')!;

  constructor(private readonly api: GragClient) {}

  /** Show a failure that happened before any job was made (a refused upload). */
  fail(what: JobLabel, error: unknown): void {
    this.show('failed', `${what} failed: ${failureMessage(error)}`);
    delete this.line.dataset.jobId;
  }

  /** Show `text` as the state of the current job. */
  private show(state: 'sending' | Job['status'], text: string): void {
    if (state !== 'sending') {
      delete this.line.dataset.sent;
      delete this.line.dataset.total;
    }
    this.line.dataset.state = state;
    this.line.textContent = text;
    this.line.classList.toggle('error', state === 'failed');
    this.line.setAttribute('role', state === 'failed' ? 'alert' : 'status');
  }

  /** Say that a write is being sent. */
  sending(what: JobLabel): void {
    delete this.line.dataset.jobId;
    delete this.line.dataset.sent;
    delete this.line.dataset.total;
    this.show('sending', `${what}: sending…`);
  }

  /** Say how much of an upload's body has been sent (`sent` of `total` bytes). */
  uploading(what: JobLabel, sent: number, total: number): void {
    this.line.dataset.sent = String(sent);
    this.line.dataset.total = String(total);
    const percent = total > 0 ? Math.floor((sent / total) * 100) : 100;
    this.show('sending', `${what}: sending ${percent}% (${byteSize(sent)} of ${byteSize(total)})…`);
  }

  private render(what: JobLabel, job: Job): void {
    this.line.dataset.jobId = job.id;
    if (job.status === 'failed') {
      this.show('failed', `${what} failed: ${job.error?.message ?? 'the job failed.'}`);
      return;
    }
    if (job.status === 'done') {
      const docs = job.documents;
      const changed = docs
        ? [
            docs.added.length ? `added ${docs.added.join(', ')}` : '',
            docs.replaced.length ? `replaced ${docs.replaced.join(', ')}` : '',
            docs.removed.length ? `removed ${docs.removed.join(', ')}` : '',
          ].filter(Boolean)
        : [];
      const version = job.version ? ` Now serving version ${job.version}.` : '';
      this.show('done', `${what}: done${changed.length ? ` (${changed.join('; ')})` : ''}.${version}`);
      return;
    }
    const p = job.progress;
    const progress = p ? ` — ${p.stage}${p.total ? ` ${p.done}/${p.total}` : ''}` : '';
    this.show(job.status, `${what}: ${job.status}${progress}…`);
  }

  /** Follow `job` to its end, showing every change; resolves with the final job. */
  async follow(what: JobLabel, job: Job): Promise<Job> {
    this.render(what, job);
    let last = job;
    try {
      for await (const next of this.api.jobEvents(job.id)) {
        last = next;
        this.render(what, next);
      }
    } catch {
      // The event stream broke (a proxy, a restart): ask for the job until it ends.
      while (last.status !== 'done' && last.status !== 'failed') {
        await new Promise((resolve) => setTimeout(resolve, 500));
        try {
          last = await this.api.job(job.id);
        } catch (error) {
          this.fail(what, error);
          return last;
        }
        this.render(what, last);
      }
    }
    return last;
  }
}
