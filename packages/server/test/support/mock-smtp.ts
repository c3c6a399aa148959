import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope sender and recipients. */
  from: string;
  to: string[];
  /** The raw message (headers and body) as received. */
  raw: string;
  subject: string;
  /** The body with quoted-printable soft breaks and escapes undone (enough to find codes and links). */
  text: string;
}

export interface MockSmtp {
  host: string;
  port: number;
  /** Accepted login (the server refuses any other). */
  user: string;
  pass: string;
  mails: ReceivedMail[];
  /** Mails sent to `address` (case-insensitive), oldest first. */
  to(address: string): ReceivedMail[];
  /** Resolves with the next mail to `address` that arrives after the call (or is already waiting past `after`). */
  waitFor(address: string, after?: number, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function parse(raw: string): { subject: string; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = split >= 0 ? raw.slice(0, split) : raw;
  const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/im.exec(headers)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';
  return { subject, text: decodeQuotedPrintable(raw.slice(split >= 0 ? split : 0)).replace(/&amp;/g, '&') };
}

/** A real SMTP server on 127.0.0.1 (plain, with AUTH PLAIN/LOGIN) that keeps every mail it accepts. */
export async function startMockSmtp(user = 'mailer@example.test', pass = 'smtp-secret'): Promise<MockSmtp> {
  const mails: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === user && auth.password === pass) cb(null, { user: auth.username });
      else cb(new Error('invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw, ...parse(raw) });
        for (const w of waiters.splice(0)) w();
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const to = (address: string) => mails.filter((m) => m.to.some((r) => r.toLowerCase() === address.toLowerCase()));
  return {
    host: '127.0.0.1',
    port,
    user,
    pass,
    mails,
    to,
    waitFor(address, after = to(address).length, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${address} within ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          const got = to(address)[after];
          if (got) {
            clearTimeout(timer);
            resolve(got);
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
