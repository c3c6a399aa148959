import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Days the certificate is valid. */
const CERT_DAYS = '1';

export interface SelfSignedCert {
  keyFile: string;
  certFile: string;
  key: string;
  cert: string;
}

/**
 * A key and a self-signed certificate for 127.0.0.1 (openssl), written in `dir`. Trust it only where it is used
 * (an agent's own `ca`), never process-wide.
 */
export function makeSelfSignedCert(dir: string): SelfSignedCert {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  const args = [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    CERT_DAYS,
    '-subj',
    '/CN=127.0.0.1',
  ];
  execFileSync('openssl', [...args, '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], {
    stdio: 'ignore',
  });
  return { keyFile, certFile, key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
}
