import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/lib/errors.js';
import { accessTokenOf, providerError, userObjectOf } from '../../src/modules/oauth/provider-http.js';

const htmlPage = '<html><body>Internal admin panel at 10.0.0.7:8080 — secret build info</body></html>';

describe('sign-in provider answers shown to visitors', () => {
  it("quotes an OAuth error's own text", () => {
    expect(
      providerError({
        status: 400,
        body: { error: 'bad_verification_code', error_description: 'The code is wrong' },
        text: '',
      }),
    ).toBe('The code is wrong');
  });

  it('names a page that is not an OAuth answer by its status only', () => {
    expect(providerError({ status: 502, body: undefined, text: htmlPage })).toBe('HTTP 502');
    const token = (() => {
      try {
        accessTokenOf('GitHub', { status: 200, body: undefined, text: htmlPage });
      } catch (e) {
        return e as ApiError;
      }
    })();
    expect(token).toBeInstanceOf(ApiError);
    expect(token!.message).toBe('GitHub refused the sign-in code (HTTP 200): start the sign-in again');
    expect(() => userObjectOf('LinuxDO', { status: 404, body: undefined, text: htmlPage })).toThrow(
      'cannot read the LinuxDO user (HTTP 404)',
    );
  });
});
