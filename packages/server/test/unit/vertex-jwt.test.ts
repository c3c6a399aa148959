import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jwsCompactRs256, parseServiceAccount, serviceAccountAssertion } from '../../src/relay/providers/vertex/jwt.js';
import { vertexClaudeModel, vertexRegion } from '../../src/relay/providers/vertex/adaptor.js';

/** RFC 7515 Appendix A.2 (RS256): the RSA key, the exact header and payload bytes, and the published JWS. */
const A2_KEY = {
  kty: 'RSA',
  n: 'ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ',
  e: 'AQAB',
  d: 'Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ',
  p: '4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2KKDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc',
  q: 'uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_HlB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc',
  dp: 'BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3QCLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCjn12Sk3vmAktV2zb34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0',
  dq: 'h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnwgjMd2w9cjz3_-kyNlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU',
  qi: 'IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U',
};
const A2_HEADER = '{"alg":"RS256"}';
const A2_PAYLOAD = '{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}';
const A2_JWS =
  'eyJhbGciOiJSUzI1NiJ9' +
  '.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ' +
  '.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw';

describe('Vertex AI service-account JWT', () => {
  it('reproduces RFC 7515 A.2 (RS256) byte for byte from its key, header and payload', () => {
    const key = crypto.createPrivateKey({ key: A2_KEY, format: 'jwk' });
    expect(jwsCompactRs256(A2_HEADER, A2_PAYLOAD, key)).toBe(A2_JWS);
    // And from the PEM form a service-account key carries.
    expect(jwsCompactRs256(A2_HEADER, A2_PAYLOAD, key.export({ type: 'pkcs8', format: 'pem' }) as string)).toBe(A2_JWS);
  });

  it('signs the OAuth assertion (RS256, iss, scope, aud = token_uri, exp = iat + 3600) so the public key verifies it', () => {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const sa = parseServiceAccount(
      JSON.stringify({
        type: 'service_account',
        project_id: 'proj-1',
        private_key_id: 'kid-1',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
        client_email: 'bot@proj-1.iam.gserviceaccount.com',
        token_uri: 'http://127.0.0.1:9/token',
      }),
    );
    const jwt = serviceAccountAssertion(sa, 1_700_000_000);
    const [h, p, s] = jwt.split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'kid-1' });
    expect(JSON.parse(Buffer.from(p!, 'base64url').toString())).toEqual({
      iss: 'bot@proj-1.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: 'http://127.0.0.1:9/token',
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    });
    expect(crypto.verify('sha256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s!, 'base64url'))).toBe(true);
    expect(crypto.verify('sha256', Buffer.from(`${h}.${p}x`), publicKey, Buffer.from(s!, 'base64url'))).toBe(false);
  });

  it('defaults token_uri to Google and names what a key lacks', () => {
    expect(parseServiceAccount(JSON.stringify({ client_email: 'a', private_key: 'k', project_id: 'p' })).tokenUri).toBe(
      'https://oauth2.googleapis.com/token',
    );
    expect(() => parseServiceAccount(JSON.stringify({ client_email: 'a' }))).toThrow('lacks private_key, project_id');
    expect(() => parseServiceAccount('not json')).toThrow('service account JSON');
  });
});

describe('Vertex AI routing', () => {
  it('reads the region from text or a JSON model map with a default', () => {
    expect(vertexRegion('', 'gemini-2.5-flash')).toBe('global');
    expect(vertexRegion(' us-central1 ', 'x')).toBe('us-central1');
    const map = JSON.stringify({ default: 'us-central1', 'claude-sonnet-4@20250514': 'us-east5' });
    expect(vertexRegion(map, 'claude-sonnet-4@20250514')).toBe('us-east5');
    expect(vertexRegion(map, 'gemini-2.5-pro')).toBe('us-central1');
    expect(vertexRegion('{"a":"b"}', 'other')).toBe('global');
  });

  it("names Claude models Vertex's way", () => {
    expect(vertexClaudeModel('claude-sonnet-4-20250514')).toBe('claude-sonnet-4@20250514');
    expect(vertexClaudeModel('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet-v2@20241022');
    expect(vertexClaudeModel('claude-opus-4-1@20250805')).toBe('claude-opus-4-1@20250805');
  });
});
