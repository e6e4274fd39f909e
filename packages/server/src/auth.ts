/** Bearer-token check in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * A check of `Authorization` header values against `token`. Both sides are hashed first, so the
 * comparison takes the same time whatever the length or content of what was sent.
 */
export function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    const given = digest(match?.[1] ?? '');
    // Always compare (also for a missing header), so a request cannot tell the cases apart by time.
    return timingSafeEqual(given, expected) && match !== null;
  };
}
