import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { z } from 'zod';
import type { Channel } from './channel.ts';
import { DeliveryError } from './delivery-error.ts';
import { emailMessage } from './email-message.ts';
import { parseOptions } from './options.ts';
import { DELIVERY_HEADER } from './webhook-signature.ts';

/** Options of {@link emailChannel}: either `transport` or `host` (+ `port`). */
export interface EmailChannelOptions {
  /** Nodemailer SMTP options (host, port, secure, auth, tls…), for full control. */
  transport?: SMTPTransport.Options;
  /** SMTP host, when `transport` is not given. */
  host?: string;
  /** SMTP port (default 587, or 465 when `secure`). */
  port?: number;
  /** Connect with TLS from the start (port 465). Otherwise STARTTLS is used when the server offers it. */
  secure?: boolean;
  auth?: { user: string; pass: string };
  /** Sender, e.g. `"Interlock" <interlock@example.com>`. */
  from: string;
  /** Recipients: the reviewers (or their list address) of the roles routed here. */
  to: string[];
  /** Channel name (default `email`). */
  name?: string;
  /** Connection, greeting and socket timeout (default 10000 ms) unless `transport` sets its own. */
  timeoutMs?: number;
}

const address = z
  .string()
  .min(3)
  .refine((s) => s.includes('@'), 'must be an e-mail address such as "reviewers@example.com"');
const schema = z
  .object({
    transport: z
      .custom<SMTPTransport.Options>(
        (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
        'must be nodemailer SMTP options: { host, port, secure, auth }',
      )
      .optional(),
    host: z.string().min(1).optional(),
    port: z.number().int().min(1).max(65535).optional(),
    secure: z.boolean().optional(),
    auth: z.object({ user: z.string(), pass: z.string() }).optional(),
    from: address,
    to: z.array(address).min(1, 'needs at least one recipient'),
    name: z.string().min(1).optional(),
    timeoutMs: z.number().int().positive().optional(),
  })
  .refine((o) => (o.transport === undefined) !== (o.host === undefined), {
    message: 'give either "transport" (nodemailer SMTP options) or "host" (and "port"), not both and not neither',
    path: ['host'],
  });

/**
 * Send each notification as an e-mail with a text and an HTML body and the
 * review link. Headers `X-Interlock-Delivery` and a Message-ID derived from the
 * delivery id let mail systems spot a duplicate sent on retry.
 * @example
 * const mail = emailChannel({ host: 'smtp.example.com', port: 587, auth: { user, pass },
 *   from: 'Interlock <interlock@example.com>', to: ['finance-approvers@example.com'] });
 */
export function emailChannel(options: EmailChannelOptions): Channel {
  const o = parseOptions(
    schema,
    options,
    'emailChannel',
    'it needs { from, to: [addresses] } and either { host, port } or { transport }.',
  );
  const name = o.name ?? 'email';
  const timeoutMs = o.timeoutMs ?? 10_000;
  const timeouts = { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs };
  const smtp: SMTPTransport.Options = o.transport
    ? { ...timeouts, ...o.transport }
    : {
        ...timeouts,
        host: o.host,
        port: o.port ?? (o.secure ? 465 : 587),
        secure: o.secure ?? false,
        ...(o.auth ? { auth: o.auth } : {}),
      };
  const transporter = nodemailer.createTransport(smtp);
  const domain = /@([^>\s]+)>?\s*$/.exec(o.from)?.[1] ?? 'interlock';
  return {
    name,
    async send(message, delivery) {
      const content = emailMessage(message);
      const headers: Record<string, string> = { 'X-Interlock-Request': message.id };
      if (delivery) headers[DELIVERY_HEADER] = delivery.deliveryId;
      let info: SMTPTransport.SentMessageInfo;
      try {
        info = await transporter.sendMail({
          from: o.from,
          to: o.to,
          subject: content.subject,
          text: content.text,
          html: content.html,
          headers,
          ...(delivery ? { messageId: `<${delivery.deliveryId}@${domain}>` } : {}),
        });
      } catch (err) {
        throw new DeliveryError(name, `SMTP send failed: ${err instanceof Error ? err.message : String(err)}`, {
          cause: err,
        });
      }
      // Retrying would duplicate the mail to the recipients that did accept it; only none accepting is a failure.
      if (info.accepted.length === 0)
        throw new DeliveryError(name, `the SMTP server accepted none of the recipients (${info.response}).`);
    },
  };
}
