import { describe, expect, it } from 'vitest';
import { bedrockModelId } from '../../src/relay/providers/aws/models.js';
import { canonicalUri, sha256Hex, signingKey, signRequest } from '../../src/relay/providers/aws/sigv4.js';

/**
 * SigV4 against AWS's published vectors: the SigV4 test suite (get-vanilla, post-vanilla,
 * get-vanilla-query-order-key-case; AKIDEXAMPLE, us-east-1, service "service", 20150830T123600Z), the
 * signing-key derivation example (iam, 20120215) and the S3 reference's "GET Object" example.
 */
const suite = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const suiteTime = new Date('2015-08-30T12:36:00Z');
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const suiteSign = (method: string, url: string) =>
  signRequest({
    method,
    url: new URL(url),
    headers: {},
    body: '',
    region: 'us-east-1',
    service: 'service',
    credentials: suite,
    now: suiteTime,
  });

describe('SigV4 signing (published vectors)', () => {
  it('derives the documented signing key (secret wJalr…, 20120215, us-east-1, iam)', () => {
    expect(signingKey('wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', '20120215', 'us-east-1', 'iam').toString('hex')).toBe(
      'f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d',
    );
  });

  it('get-vanilla: canonical request, string to sign and Authorization header', () => {
    const s = suiteSign('GET', 'https://example.amazonaws.com/');
    expect(s.canonicalRequest).toBe(
      [
        'GET',
        '/',
        '',
        'host:example.amazonaws.com',
        'x-amz-date:20150830T123600Z',
        '',
        'host;x-amz-date',
        EMPTY_SHA256,
      ].join('\n'),
    );
    expect(s.stringToSign).toBe(
      'AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
    );
    expect(s.headers['x-amz-date']).toBe('20150830T123600Z');
    expect(s.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  it('post-vanilla', () => {
    const s = suiteSign('POST', 'https://example.amazonaws.com/');
    expect(s.canonicalRequest.split('\n')[0]).toBe('POST');
    expect(s.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    );
  });

  it('get-vanilla-query-order-key-case: query parameters sorted', () => {
    const s = suiteSign('GET', 'https://example.amazonaws.com/?Param2=value2&Param1=value1');
    expect(s.canonicalRequest.split('\n')[2]).toBe('Param1=value1&Param2=value2');
    expect(s.signature).toBe('b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500');
  });

  it("S3 reference 'GET Object' (range header, x-amz-content-sha256 of the empty body)", () => {
    const s = signRequest({
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: { Range: 'bytes=0-9' },
      body: '',
      region: 'us-east-1',
      service: 's3',
      credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
      now: new Date('2013-05-24T00:00:00Z'),
      contentSha256: true,
    });
    expect(s.stringToSign.split('\n')[3]).toBe('7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972');
    expect(s.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    expect(s.headers['x-amz-content-sha256']).toBe(EMPTY_SHA256);
  });

  it('encodes path segments twice except for S3 (Bedrock model ids carry a colon)', () => {
    const url = new URL(
      `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent('anthropic.claude-3-5-sonnet-20241022-v2:0')}/invoke`,
    );
    expect(url.pathname).toBe('/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke');
    expect(canonicalUri(url.pathname, 'bedrock')).toBe('/model/anthropic.claude-3-5-sonnet-20241022-v2%253A0/invoke');
    expect(canonicalUri('/a%20b/c', 's3')).toBe('/a%20b/c');
  });

  it('signs the body, the session token and every given header', () => {
    const base = {
      method: 'POST',
      url: new URL('https://bedrock-runtime.eu-west-1.amazonaws.com/model/x/invoke'),
      headers: { 'Content-Type': 'application/json' },
      region: 'eu-west-1',
      service: 'bedrock',
      now: suiteTime,
      contentSha256: true,
    };
    const a = signRequest({ ...base, body: '{"a":1}', credentials: suite });
    const b = signRequest({ ...base, body: '{"a":2}', credentials: suite });
    expect(a.signature).not.toBe(b.signature);
    expect(a.headers['x-amz-content-sha256']).toBe(sha256Hex('{"a":1}'));
    expect(a.headers.authorization).toContain('SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date,');
    const t = signRequest({ ...base, body: '{"a":1}', credentials: { ...suite, sessionToken: 'tok' } });
    expect(t.headers['x-amz-security-token']).toBe('tok');
    expect(t.headers.authorization).toContain('x-amz-security-token');
  });
});

describe('Bedrock model ids', () => {
  it('maps Claude names to Bedrock ids, with the geography prefix where an inference profile is needed', () => {
    expect(bedrockModelId('claude-3-5-sonnet-20241022', 'us-east-1')).toBe('anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(bedrockModelId('claude-sonnet-4-20250514', 'us-west-2')).toBe('us.anthropic.claude-sonnet-4-20250514-v1:0');
    expect(bedrockModelId('claude-sonnet-4-20250514', 'eu-central-1')).toBe(
      'eu.anthropic.claude-sonnet-4-20250514-v1:0',
    );
    expect(bedrockModelId('claude-3-7-sonnet-20250219', 'ap-northeast-1')).toBe(
      'apac.anthropic.claude-3-7-sonnet-20250219-v1:0',
    );
    expect(bedrockModelId('us.anthropic.claude-opus-4-1-20250805-v1:0', 'us-east-1')).toBe(
      'us.anthropic.claude-opus-4-1-20250805-v1:0',
    );
  });
});
