// The one builder of the `error` frame: what it builds matches spec/asyncapi.yaml ErrorMessage.
import { describe, expect, it } from 'vitest';
import { errorFrame, notAuthenticatedFrame, rateLimitedAnswer, serializeServerMessage } from './protocol.js';

describe('error frames', () => {
  it('errorFrame and notAuthenticatedFrame build schema-valid error messages', () => {
    expect(JSON.parse(serializeServerMessage(errorFrame('malformed_message', 'frame is not a JSON object'), true))).toEqual({
      type: 'error',
      code: 'malformed_message',
      message: 'frame is not a JSON object',
    });
    expect(notAuthenticatedFrame('mmp_set')).toEqual({
      type: 'error',
      code: 'not_authenticated',
      message: 'authenticate (auth, auth_response) before mmp_set',
    });
    expect(() => serializeServerMessage(notAuthenticatedFrame('subscribe'), true)).not.toThrow();
  });

  it('a rate-limited frame that is not a quote is answered with the error frame', () => {
    const answer = rateLimitedAnswer({ kind: 'error', code: 'malformed_message', message: 'x' }, 'too many frames');
    expect(answer).toEqual(errorFrame('rate_limited', 'too many frames'));
  });
});
