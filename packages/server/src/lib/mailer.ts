import { ErrorCode } from '@tollway/shared';
import { coded } from './errors.js';
import type { OptionReader } from './option-reader.js';

export interface Mail {
  to: string;
  subject: string;
  /** HTML body; a plain-text part is derived from it. */
  html: string;
}

const MAIL_NOT_CONFIGURED =
  'mail delivery is not configured: the administrator must set the SMTP server (SMTPServer) and the sender address (SMTPFrom, or an SMTPAccount that is an address)';

/**
 * Sends mail over SMTP with the SMTP* options, read at send time (a saved setting applies to the next mail).
 * SMTPSSLEnabled or port 465 means implicit TLS; otherwise STARTTLS is used when the server offers it.
 */
export class Mailer {
  constructor(private readonly options: OptionReader) {}

  /** True when a server and a sender address are set. */
  configured(): boolean {
    return this.options.get('SMTPServer').trim() !== '' && this.sender() !== '';
  }

  /** SMTPFrom, or the account when it is an address (new-api's fallback). */
  private sender(): string {
    const from = this.options.get('SMTPFrom').trim();
    if (from) return from;
    const account = this.options.get('SMTPAccount').trim();
    return account.includes('@') ? account : '';
  }

  /** Throws the clear refusal when mail cannot be sent (shown to the user, hence a 400 and not a 5xx). */
  assertConfigured(): void {
    if (!this.configured()) throw coded(ErrorCode.SmtpNotConfigured, MAIL_NOT_CONFIGURED);
  }

  async send(mail: Mail): Promise<void> {
    this.assertConfigured();
    const o = this.options;
    const port = o.num('SMTPPort') || 587;
    const account = o.get('SMTPAccount').trim();
    // Loaded on the first mail: most processes never send one.
    const { default: nodemailer } = await import('nodemailer');
    const transport = nodemailer.createTransport({
      host: o.get('SMTPServer').trim(),
      port,
      secure: o.bool('SMTPSSLEnabled') || port === 465,
      auth: account ? { user: account, pass: o.get('SMTPToken') } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
    try {
      await transport.sendMail({
        from: this.sender(),
        to: mail.to,
        subject: mail.subject,
        html: mail.html,
        text: htmlToText(mail.html),
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw coded(ErrorCode.MailSendFailed, `sending the mail failed: ${reason}`, { reason });
    } finally {
      transport.close();
    }
  }
}

function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>/gi, '\n\n')
    .replace(/<a [^>]*href="([^"]*)"[^>]*>[^<]*<\/a>/gi, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .trim();
}
