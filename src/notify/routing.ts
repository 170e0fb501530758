import { z } from 'zod';
import { ConfigError } from '../core/index.ts';
import type { Channel } from './channel.ts';
import { parseOptions } from './options.ts';

/**
 * Which channels tell which reviewer role. Channel names are the keys of
 * `channels`; a role without a route uses `default`.
 * @example
 * {
 *   channels: { slack: slackChannel({ webhookUrl }), finance: emailChannel({ ... }) },
 *   routes: { supervisor: ['slack'], finance: ['finance', 'slack'] },
 *   default: ['slack'],
 * }
 */
export interface RoutingConfig {
  channels: Record<string, Channel>;
  routes?: Record<string, string[]>;
  default?: string[];
}

/** A channel chosen for a role, under its configured name. */
export interface RoutedChannel {
  name: string;
  channel: Channel;
}

/** Validated routing. */
export interface Routing {
  /** The channels of `role`: its route, else the default, else none. */
  channelsFor(role: string): RoutedChannel[];
  /** Names of every configured channel. */
  readonly channelNames: readonly string[];
}

const channelSchema = z.custom<Channel>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { send?: unknown }).send === 'function',
  'must be a channel: { name, send(message) }, e.g. webhookChannel({ url, secret })',
);
const nameList = z.array(z.string().min(1)).min(1, 'list at least one channel name');
const schema = z.object({
  channels: z
    .record(z.string().min(1), channelSchema)
    .refine(
      (c) => Object.keys(c).length > 0,
      'configure at least one channel, e.g. { slack: slackChannel({ webhookUrl }) }',
    ),
  routes: z.record(z.string().min(1), nameList).optional(),
  default: nameList.optional(),
});

/**
 * Validate routing when it is created. A route naming a channel that is not
 * configured is a {@link ConfigError} that lists the known names.
 */
export function createRouting(config: RoutingConfig): Routing {
  const c = parseOptions(
    schema,
    config,
    'routing',
    'it needs { channels: { name: channel }, routes: { role: [names] }, default?: [names] }.',
  );
  const names = Object.keys(c.channels);
  const routes = c.routes ?? {};
  if (Object.keys(routes).length === 0 && c.default === undefined) {
    throw new ConfigError(
      'Routing sends nothing: add "routes" ({ role: [channel names] }) or a "default" list of channel names.',
    );
  }
  const check = (list: readonly string[], where: string) => {
    for (const n of list) {
      if (!Object.hasOwn(c.channels, n)) {
        throw new ConfigError(
          `${where} names channel "${n}", which is not configured. Known channels: ${names.map((x) => `"${x}"`).join(', ')}. Fix the name or add "${n}" to "channels".`,
          { channel: n, where },
        );
      }
    }
  };
  for (const [role, list] of Object.entries(routes)) check(list, `routes["${role}"]`);
  if (c.default) check(c.default, 'default');

  const pick = (list: readonly string[]): RoutedChannel[] =>
    [...new Set(list)].map((name) => ({ name, channel: c.channels[name]! }));
  return {
    channelNames: names,
    channelsFor(role) {
      const list = Object.hasOwn(routes, role) ? routes[role]! : c.default;
      return list ? pick(list) : [];
    },
  };
}
