/**
 * zq.js: a browser in a zq mesh (broker/PROTOCOL.md), with ZeroQ's API names.
 *
 * ```js
 * import { ZQ } from './zq.js';
 * const zq = new ZQ({ signal: 'ws://localhost:8080/ws', room: 'demo' });
 * await zq.connect();
 * zq.subscribe('sensors.#', (msg) => console.log(msg.topic, msg.payload));
 * await zq.publish('sensors.kitchen.temp', 21.5, { qos: 1 }); // resolves once acked
 * zq.consume('jobs', async (job, ack, nack) => { await work(job.payload); await ack(); });
 * const { id } = await zq.enqueue('jobs', { url: 'x' });
 * zq.reply('rpc.add', ({ a, b }) => a + b);
 * const sum = await zq.request('rpc.add', { a: 1, b: 2 });
 * ```
 *
 * Every promise resolves or rejects truthfully: a rejection is a {@link ZQError} whose `code`
 * says why, and nothing is dropped without one (a full replay ring makes `publish` wait, or
 * reject with WOULD_BLOCK when asked not to wait).
 */

/** A JSON value: what payloads are (sent with JSON.stringify). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type ZQErrorCode =
  | 'MALFORMED'    // an argument the call does not take (bad pattern, payload not JSON...)
  | 'INVALID_ARG'  // a frame writer was given values its reader would refuse
  | 'TOO_LONG'     // the frame exceeds what a peer (or this node) can take
  | 'WOULD_BLOCK'  // no room now and the call was told not to wait
  | 'PEER_GONE'    // a peer's channel closed before the frame was handed to it
  | 'UNDELIVERED'  // a QoS 1 receiver stayed away longer than the linger time (60 s)
  | 'TIMEOUT'      // no reply in time, after every retry
  | 'REFUSED'      // a responder refused the request (message: its error)
  | 'DEAD_LETTER'  // a job ran out of attempts (3)
  | 'CLOSED'       // this ZQ was closed, or the signalling server is unreachable
  | 'STATE';       // a call at the wrong time (a job acked twice)

export class ZQError extends Error {
  readonly code: ZQErrorCode;
  /** publish: one entry per peer or receiver that did not get the message. */
  readonly failures?: { peer?: string; fp?: string; code: ZQErrorCode; message: string }[];
  /** publish: the message; enqueue: the job. */
  readonly id?: string;
  readonly seq?: number;
}

export interface ZQOptions {
  /** The signalling server's WebSocket, ZeroQ's path /ws (default: this page's host + /ws). */
  signal?: string;
  /** The room (ZeroQ's topicId), also every data channel's label. Default 'default-topic'. */
  room?: string;
  /** STUN/TURN servers for RTCPeerConnection. Default [] (host candidates only). A server
   *  started with --turn-secret adds the room's TURN servers, with credentials for this
   *  member, after these (its ice_servers frame, at the join). */
  iceServers?: RTCIceServer[];
  /**
   * A name to keep this node's identity (its DTLS certificate, in IndexedDB) and resume
   * points (in localStorage) under across page loads: a reloaded page is then the same QoS 1
   * receiver and resumes where it stopped (nothing lost, nothing twice). One live ZQ per name.
   */
  persist?: string;
  /** WebSocket reconnects before giving up (ZeroQ gives up after 10). Default Infinity. */
  maxReconnects?: number;
  /** Broker settings; see DEFAULTS. */
  config?: Partial<typeof DEFAULTS>;
  /** Diagnostic lines (connections, refusals). */
  log?: (line: string) => void;
}

/** The broker's settings and their defaults. */
export const DEFAULTS: {
  /** hello's "max": the largest frame (bytes of JSON) we take, and the largest we send. 4 MiB. */
  maxFrame: number;
  /** Replay ring: messages (4096) and bytes of frame text (32 MiB). Full: publish waits. */
  ringEntries: number;
  ringBytes: number;
  /** A QoS 1 receiver away this long is given up (undelivered). 60000 ms. */
  lingerMs: number;
  /** A job's lease (visibility timeout). 30000 ms. */
  leaseMs: number;
  /** A job's attempts before the dead-letter queue. 3. */
  maxAttempts: number;
  /** Jobs this producer holds; more wait (or WOULD_BLOCK). 10000. */
  maxJobs: number;
  /** QoS 1 acks are batched at most this long (20 ms) or this many messages (32). */
  ackDelayMs: number;
  ackEvery: number;
  /** request(): default timeout per responder (5000 ms) and further responders tried (2). */
  requestTimeoutMs: number;
  requestRetries: number;
  /** ZeroQ's heartbeat: ping every 10000 ms; a peer silent 30000 ms is dropped. */
  pingMs: number;
  silenceMs: number;
  /** A new peer silent this long is taken for a ZeroQ peer. 1000 ms. */
  helloWaitMs: number;
  /** A zq peer whose sub has not come helloRetryMs (500) after its hello is sent our hello
   *  again (ours may have been lost), helloRetries (3) times at most. */
  helloRetryMs: number;
  helloRetries: number;
  /** Backpressure: frames wait above this bufferedAmount (1 MiB), go on below lowWater
   *  (256 KiB, the channels' bufferedAmountLowThreshold). */
  highWater: number;
  lowWater: number;
  /** Largest chunk message, header included, within the channel's max-message-size. 64 KiB. */
  maxPiece: number;
  /** Last values kept (topics). 1024. */
  lvcTopics: number;
  /** ZeroQ dedup window (keys). 10000. */
  dedupWindow: number;
  maxReceivers: number;
  maxPublishers: number;
};

/** A message as a subscription handler gets it. */
export interface Message {
  id: string;
  topic: string;
  payload: Json;
  /** The publisher's Date.now() when it published. */
  timestamp: number;
  /** The publisher's sequence number (0 from ZeroQ peers). */
  seq: number;
  retryCount: number;
  priority?: number;
  /** The sender's id in the room, and its identity (certificate fingerprint, 16 hex). */
  from: string;
  fp: string;
  /** 1 when it was published with QoS 1 (we acked it). */
  qos: 0 | 1;
  /** A last value replayed to us as a new subscriber (it may be older than what we saw). */
  lastValue: boolean;
}

/** A job as a consumer's handler gets it. */
export interface Job {
  id: string;
  queue: string;
  topic: string;
  payload: Json;
  timestamp: number;
  /** Earlier attempts (0 the first time); attempt = retryCount + 1. */
  retryCount: number;
  attempt: number;
  /** The producer's lease in ms: ack or nack before it runs out, or the job goes elsewhere. */
  lease: number;
  from: string;
  fp: string;
  priority?: number;
}

/** A request as a responder's handler gets it (with its payload as the first argument). */
export interface Request {
  id: string;
  topic: string;
  service: string;
  payload: Json;
  timestamp: number;
  from: string;
  fp: string;
  /** Asked in ZeroQ's form (payload.replyTo): answered with an envelope on that topic. */
  zeroq: boolean;
}

export interface DeadLetter {
  id: string;
  payload: Json;
  /** Attempts made. */
  retryCount: number;
  /** null: held here; else the producer peer's id. */
  producer: string | null;
}

export interface PeerInfo {
  id: string;
  fp: string;
  /** It said hello (a zq peer); false: a plain ZeroQ peer (or not known yet). */
  zq: boolean;
  /** Known to be zq or ZeroQ (its first frame came, or 1 s of silence). */
  classified: boolean;
}

export interface Events {
  /** A peer's channel is open and we know what it speaks. */
  peer: { id: string; fp: string; zq: boolean };
  /** The signalling server says a member left the room. */
  peer_left: { id: string };
  /** A peer's channel closed. */
  peer_down: { id: string; fp: string; zq: boolean };
  /** A connection failed (ice-failed, datachannel-closed, ping-timeout, open-timeout...). */
  peer_failed: { id: string; reason: string };
  /** We dialed a member 10 times in vain and stopped. */
  peer_unreachable: { id: string };
  /** A member has no peer slot for us yet (a zq device with all its slots taken says
   *  `refused`): it dials us when one frees. reason: "full". */
  waiting: { id: string; reason: string };
  /** A publisher's messages first..last (seqs) that may have matched are gone. */
  lost: { from: string; fp: string; epoch: string; first: number; last: number };
  /** QoS 1 messages a receiver that never came back missed. */
  undelivered: { fp: string; count: number };
  /** A job of ours ran out of attempts. */
  dead_letter: { queue: string; id: string; attempts: number; reason: string; payload: Json };
  /** A job of ours was acked. */
  job_done: { queue: string; id: string; by: string };
  /** A peer's dead-letter list that no deadLetters() call was waiting for. */
  dlq: { queue: string; from: string; jobs: DeadLetter[]; more: boolean };
  /** We joined the room (again after a reconnect, with a new id). */
  connected: { id: string };
  /** The signalling socket closed (it reconnects with ZeroQ's backoff). */
  disconnected: { code: number };
  connection_failed: { url: string };
  /** A handler threw, or a frame could not be sent. */
  error: Error;
}

export class ZQ {
  constructor(options?: ZQOptions);

  /** Joins the room. Resolves (with this ZQ) once the server gave us an id and we joined;
   *  rejects with CLOSED if the server stays unreachable for maxReconnects attempts. */
  connect(): Promise<ZQ>;
  /** Leaves: closes every connection; every promise still waiting rejects with CLOSED. */
  close(): void;

  /** Our id in the room (the server's; a new one after each reconnect). */
  readonly id: string | null;
  /** Our identity: the first 16 hex digits of our certificate's SHA-256 fingerprint. */
  readonly fingerprint: string | null;
  /** Peers whose channel is open. */
  peers(): PeerInfo[];
  /** Counters: every frame refused, every duplicate, every chunk. */
  readonly stats: Record<string, number>;

  /** @returns a function that stops listening. */
  on<K extends keyof Events>(event: K, fn: (data: Events[K]) => void): () => void;
  off<K extends keyof Events>(event: K, fn: (data: Events[K]) => void): void;

  /**
   * ZeroQ's createTopic / createQueue: the signalling server lists the name in this room's
   * /api/topics?room= and /api/queues?room= while the page is a member. Sent on the signalling
   * socket after the join, not on a second one as ZeroQ does (zq's router lists only what
   * joined members announce). Resolves once handed to the socket (after it opens, if down).
   */
  createTopic(topic: string): Promise<void>;
  createQueue(queue: string): Promise<void>;

  /**
   * Subscribes to topics matching `pattern`. Its levels are separated by '/' if it has one
   * (MQTT's names: 'sensors/#'), else by '.' (ZeroQ's: 'sensors.#'), and topics are split
   * the same way: under 'sensors/#' a '.' is a plain character ('v1.2/status' has two
   * levels), under 'sensors.#' a '/' is. '+' (a whole level) matches exactly one level, '#'
   * (a whole last level) zero or more ('sensors/#' matches 'sensors' too), a final '*' makes
   * a prefix ('log*'), anything else matches only itself. Peers hear of it at once and send
   * us only what matches (ZeroQ peers send everything; what does not match is dropped here).
   * Each message is delivered once.
   * @throws ZQError MALFORMED for an unusable pattern ('sensors#', 'a/#/b', 'sens+'), its
   *         message saying how to write it (patternProblem)
   * @returns a function that unsubscribes this handler
   */
  subscribe(pattern: string, handler: (msg: Message) => void): () => void;
  /** Removes `handler`, or every handler, of `pattern`. @returns whether there was one. */
  unsubscribe(pattern: string, handler?: (msg: Message) => void): boolean;

  /**
   * Publishes `payload` on `topic` to every peer that wants it (ZeroQ peers: all of them, as
   * plain ZeroQ envelopes). Goes into the replay ring: a subscriber that comes back gets what
   * it missed, or hears that it was lost.
   *
   * - qos 0: resolves once handed to the channel of every peer connected when it was
   *   published (passing over those that do not want it).
   * - qos 1: resolves once every QoS 1 receiver that wants it acked it, including one that
   *   went away and came back within 60 s; ZeroQ peers, which cannot ack, count when handed.
   * - wait (default true): when the ring is full (of messages owed acks, or not yet handed to
   *   a slow peer), wait for room; false: reject with WOULD_BLOCK.
   *
   * Rejects with TOO_LONG (a peer's max or the channel's max-message-size without chunks),
   * PEER_GONE (a peer's channel closed before it was handed over), UNDELIVERED (a receiver
   * given up), MALFORMED (a payload that is not JSON, or a topic with '+' or '#', which are
   * for patterns only: topicProblem), CLOSED; `failures` lists every peer concerned.
   */
  publish(topic: string, payload: Json, options?: { qos?: 0 | 1; wait?: boolean }):
    Promise<{ id: string; seq: number; topic: string }>;

  /**
   * Hands a job to exactly one consumer in the mesh that gave credit (never to ZeroQ peers,
   * which would each process it). This node holds it until a consumer acks it, under a
   * lease; a nack, the lease running out or the consumer leaving hands it to another; after
   * 3 attempts it is a dead letter here (see deadLetters).
   * - until 'stored' (default): resolves with its id once held here.
   * - until 'done': resolves once a consumer acked it; rejects with DEAD_LETTER.
   * - wait (default true): when the job store is full, wait; false: reject WOULD_BLOCK.
   * - priority: ZeroQ's advisory priority, carried in the envelope.
   * A node's own consumer does not take its own jobs (as ZeroQ: no peer gets its own).
   */
  enqueue(queue: string, payload: Json,
    options?: { until?: 'stored' | 'done'; wait?: boolean; priority?: number }):
    Promise<{ id: string; attempts?: number }>;

  /**
   * Consumes `queue`: at most `credit` (default 1) jobs at once are given to `handler`, each
   * with `ack()` and `nack()` (each returns a promise: resolves once the producer's channel
   * was handed the answer; rejects STATE when called twice). A handler that throws or
   * rejects nacks the job. Jobs broadcast by ZeroQ peers on this queue are taken once each.
   * @returns a function that stops consuming (jobs held stay ackable)
   */
  consume(queue: string,
    handler: (job: Job, ack: () => Promise<void>, nack: () => Promise<void>) => void | Promise<void>,
    options?: { credit?: number }): () => void;

  /** Dead letters of `queue` held here; with remote: also every zq producer's (asked with
   *  __zq_dlq__, answers gathered for `timeout` ms, default 1000). */
  deadLetters(queue: string, options?: { remote?: boolean; timeout?: number }): Promise<DeadLetter[]>;
  /** Puts the dead letters of `queue` back (attempts reset). @returns how many here. */
  requeueDeadLetters(queue: string, options?: { remote?: boolean }): Promise<number>;
  /** Deletes the dead letters of `queue`. @returns how many here. */
  purgeDeadLetters(queue: string, options?: { remote?: boolean }): Promise<number>;

  /**
   * Asks one responder of `service`: a zq peer that announced it, then the next one after
   * `timeout` ms (default 5000) without a reply, up to `retries` more (default 2). With no zq
   * responder, ZeroQ peers are asked in ZeroQ's form (payload.replyTo: object payloads only)
   * and the first answer wins. With `peer` (a peer's id or fingerprint, as the `peer` event
   * gives them) only that peer is asked, again on each retry. Resolves with the answer's
   * payload; rejects with REFUSED (the responder's error), TIMEOUT, TOO_LONG, MALFORMED, CLOSED.
   */
  request(service: string, payload: Json,
    options?: { timeout?: number; retries?: number; peer?: string }): Promise<Json>;

  /**
   * Answers requests to `service` (announced to zq peers) with `handler(payload, request)`'s
   * value or promise; a throw refuses (zq peers get ok:false with its message; ZeroQ peers
   * get nothing, ZeroQ having no error reply). ZeroQ's requests (payload.replyTo) are
   * answered with an envelope on that topic.
   * @returns a function that stops answering
   */
  reply(service: string, handler: (payload: Json, request: Request) => Json | Promise<Json>):
    () => void;
}

/** Whether `pattern` is a usable subscription pattern (patternProblem has nothing to say). */
export function checkPattern(pattern: string): boolean;
/** Why `pattern` cannot be subscribed to, in words that say how to write it (the C broker's
 *  brk_pattern_problem gives the same); null when it can. */
export function patternProblem(pattern: string): string | null;
/** Why `topic` cannot be published on (a '+' or '#' in it); null when it can. */
export function topicProblem(topic: string): string | null;
/** Whether `topic` matches the (checked) `pattern`. */
export function matchPattern(pattern: string, topic: string): boolean;

export default ZQ;
