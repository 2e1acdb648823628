import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A fake Stripe on loopback, for the real `stripe` SDK (pointed at it with STRIPE_API_BASE). It
 * speaks the API as the SDK does: form-encoded requests with bracketed keys, a Bearer secret key,
 * JSON answers, and Stripe's error shape. It implements what Skillpress calls:
 * `POST /v1/checkout/sessions` (and `GET` of one), answering a realistic session with a `url`
 * on this server. That URL is the hosted payment page: visiting it pays the session, hands the
 * `checkout.session.completed` event to `onPaid`, and redirects to the session's success URL.
 *
 * Events are built as Stripe sends them and signed with the SDK's own
 * `webhooks.generateTestHeaderString`, using the webhook secret given to Skillpress.
 */
export interface FakeStripe {
  baseUrl: string;
  secretKey: string;
  webhookSecret: string;
  /** Every Checkout Session created, by id, as the API returned it (updated once paid). */
  sessions: Map<string, CheckoutSession>;
  /** Requests to the API that were refused for a bad key. */
  refusedKeys: number;
  /** Called when the hosted page is visited, with the completed event (deliver it to the webhook). */
  onPaid?: (event: StripeEventBody) => Promise<void>;
  /** Makes the next `count` API requests fail with `status` (Stripe's `api_error`). */
  failNext(status: number, count?: number): void;
  /** Pays a session as a buyer would: the `checkout.session.completed` event, not yet delivered. */
  pay(sessionId: string): StripeEventBody;
  /** Fully refunds a paid session's charge: the `charge.refunded` event. */
  refund(sessionId: string): StripeEventBody;
  /**
   * A dispute (chargeback) of a paid session's charge at `status`: `charge.dispute.created` for an
   * open one (`needs_response`…), `charge.dispute.closed` for `won`, `lost` or `warning_closed`.
   */
  dispute(sessionId: string, status: string): StripeEventBody;
  /** The body and Stripe-Signature header of an event, signed with the webhook secret (or another). */
  sign(event: StripeEventBody, secret?: string): { payload: string; signature: string };
  close(): Promise<void>;
}

export interface CheckoutSession {
  id: string;
  object: 'checkout.session';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  mode: string;
  payment_intent: string | null;
  payment_status: 'unpaid' | 'paid';
  status: 'open' | 'complete';
  success_url: string;
  cancel_url: string;
  url: string | null;
  [more: string]: unknown;
}

export interface StripeEventBody {
  id: string;
  object: 'event';
  type: string;
  data: { object: Record<string, unknown> };
  [more: string]: unknown;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const sessions = new Map<string, CheckoutSession>();
  const failures: { status: number; count: number }[] = [];
  const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;
  const now = () => Math.floor(Date.now() / 1000);
  let baseUrl = '';

  const event = (type: string, object: Record<string, unknown>): StripeEventBody => ({
    id: id('evt'),
    object: 'event',
    api_version: '2026-10-28.endive',
    created: now(),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });

  const fake: FakeStripe = {
    baseUrl: '',
    secretKey,
    webhookSecret,
    sessions,
    refusedKeys: 0,
    failNext(status, count = 1) {
      failures.push({ status, count });
    },
    pay(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      if (session.payment_status !== 'paid') Object.assign(session, { payment_status: 'paid', status: 'complete', payment_intent: id('pi'), url: null });
      return event('checkout.session.completed', { ...session });
    },
    refund(sessionId) {
      const session = sessions.get(sessionId);
      if (!session?.payment_intent) throw new Error(`session ${sessionId} is not paid`);
      const amount = session.amount_total;
      return event('charge.refunded', {
        id: id('ch'),
        object: 'charge',
        amount,
        amount_captured: amount,
        amount_refunded: amount,
        captured: true,
        currency: session.currency,
        paid: true,
        payment_intent: session.payment_intent,
        refunded: true,
        status: 'succeeded',
        metadata: {},
      });
    },
    dispute(sessionId, status) {
      const session = sessions.get(sessionId);
      if (!session?.payment_intent) throw new Error(`session ${sessionId} is not paid`);
      const closed = ['won', 'lost', 'warning_closed'].includes(status);
      return event(closed ? 'charge.dispute.closed' : 'charge.dispute.created', {
        id: `dp_${String(session.payment_intent).slice(3)}`,
        object: 'dispute',
        amount: session.amount_total,
        charge: id('ch'),
        currency: session.currency,
        payment_intent: session.payment_intent,
        reason: 'fraudulent',
        status,
        metadata: {},
      });
    },
    sign(body, secret = webhookSecret) {
      const payload = JSON.stringify(body, null, 2);
      return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const pay = /^\/c\/pay\/(cs_test_\w+)$/.exec(url.pathname);
    if (req.method === 'GET' && pay) {
      const session = sessions.get(pay[1]!);
      if (!session) return send(res, 404, { error: { type: 'invalid_request_error', message: 'No such checkout session' } });
      const completed = fake.pay(session.id);
      await fake.onPaid?.(completed);
      res.writeHead(303, { location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id) }).end();
      return;
    }

    const failure = failures.find((f) => f.count > 0);
    if (failure) {
      failure.count -= 1;
      return send(res, failure.status, { error: { type: 'api_error', message: 'Something went wrong on our end.' } });
    }
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      fake.refusedKeys += 1;
      return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' } });
    }
    const body = decodeForm(await readBody(req));

    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const problem = sessionProblem(body);
      if (problem) return send(res, 400, { error: { type: 'invalid_request_error', message: problem, param: problem.split(':')[0] } });
      const item = (body.line_items as Record<string, any>[])[0]!;
      const sessionId = id('cs');
      const amount = Number(item.price_data.unit_amount) * Number(item.quantity);
      const session: CheckoutSession = {
        id: sessionId,
        object: 'checkout.session',
        amount_subtotal: amount,
        amount_total: amount,
        cancel_url: String(body.cancel_url),
        client_reference_id: typeof body.client_reference_id === 'string' ? body.client_reference_id : null,
        created: now(),
        currency: String(item.price_data.currency),
        customer: null,
        expires_at: now() + 24 * 3600,
        livemode: false,
        metadata: (body.metadata as Record<string, string>) ?? {},
        mode: 'payment',
        payment_intent: null,
        payment_method_types: ['card'],
        payment_status: 'unpaid',
        status: 'open',
        success_url: String(body.success_url),
        url: `${baseUrl}/c/pay/${sessionId}`,
      };
      sessions.set(sessionId, session);
      return send(res, 200, session);
    }
    const get = /^\/v1\/checkout\/sessions\/(cs_test_\w+)$/.exec(url.pathname);
    if (req.method === 'GET' && get && sessions.has(get[1]!)) return send(res, 200, sessions.get(get[1]!));
    send(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname})` } });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { error: { type: 'api_error', message: 'fake failed' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.baseUrl = baseUrl;
  return fake;
}

/** What Stripe would refuse in a payment-mode session with inline price data. */
function sessionProblem(body: Record<string, unknown>): string | undefined {
  if (body.mode !== 'payment') return 'mode: only payment is faked';
  const items = body.line_items as Record<string, any>[] | undefined;
  const price = items?.[0]?.price_data;
  if (!price || !/^[a-z]{3}$/.test(price.currency ?? '')) return 'line_items[0][price_data][currency]: Invalid currency';
  if (!/^\d+$/.test(price.unit_amount ?? '') || Number(price.unit_amount) < 1) return 'line_items[0][price_data][unit_amount]: Invalid integer';
  if (!price.product_data?.name) return 'line_items[0][price_data][product_data][name]: Missing required param';
  if (typeof body.success_url !== 'string' || !/^https?:\/\//.test(body.success_url)) return 'success_url: Not a valid URL';
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `a[b][0][c]=x` → `{a: {b: [{c: 'x'}]}}`, as Stripe reads the SDK's form encoding. */
function decodeForm(text: string): Record<string, unknown> {
  const root: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let node = root;
    for (const [i, part] of path.entries()) {
      if (i === path.length - 1) node[part] = value;
      else node = node[part] ??= /^\d+$/.test(path[i + 1]!) ? [] : {};
    }
  }
  return root;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(7).toString('hex')}` }).end(JSON.stringify(body));
}

/** The environment that points Skillpress's payments at `fake`. */
export function fakeStripeEnv(fake: FakeStripe): Record<string, string> {
  return { STRIPE_SECRET_KEY: fake.secretKey, STRIPE_WEBHOOK_SECRET: fake.webhookSecret, STRIPE_API_BASE: fake.baseUrl };
}
