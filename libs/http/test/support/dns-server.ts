import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

const NXDOMAIN = 3;

interface Held {
  reply: () => void;
}

/**
 * A DNS server on 127.0.0.1 for tests: answers A and AAAA queries for the names it is given
 * (NXDOMAIN for others), and holds the queries of names marked slow until `answerHeld` (or forever),
 * as an attacker's slow authoritative server does.
 */
export class TestDnsServer {
  private readonly records = new Map<string, { A: string[]; AAAA: string[] }>();
  private readonly slow = new Set<string>();
  private readonly held: Held[] = [];
  /** Queries received, by name. */
  readonly queries = new Map<string, number>();

  private constructor(
    private readonly socket: Socket,
    readonly address: string,
  ) {
    socket.on('message', (message, remote) => this.onQuery(message, remote));
  }

  static async start(): Promise<TestDnsServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new TestDnsServer(socket, `127.0.0.1:${socket.address().port}`);
  }

  /** The name's addresses (IPv4 and IPv6 alike). */
  answer(name: string, ...addresses: string[]): this {
    this.records.set(name, {
      A: addresses.filter((address) => !address.includes(':')),
      AAAA: addresses.filter((address) => address.includes(':')),
    });
    return this;
  }

  /** Queries of the name wait until `answerHeld`. */
  holdQueriesOf(name: string): this {
    this.slow.add(name);
    return this;
  }

  /** Queries received for the name so far. */
  queriesOf(name: string): number {
    return this.queries.get(name) ?? 0;
  }

  /** Answers every held query now. */
  answerHeld(): void {
    for (const held of this.held.splice(0)) held.reply();
  }

  async close(): Promise<void> {
    this.held.length = 0;
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private onQuery(message: Buffer, remote: RemoteInfo): void {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (question === undefined) return;
    const name = question.name.toLowerCase();
    this.queries.set(name, (this.queries.get(name) ?? 0) + 1);
    const record = this.records.get(name);
    const type = question.type === 'AAAA' ? 'AAAA' : 'A';
    const reply = () => {
      const response = dnsPacket.encode({
        type: 'response',
        id: query.id ?? 0,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (record === undefined ? NXDOMAIN : 0),
        questions: [question],
        answers: (record?.[type] ?? []).map((data) => ({
          type,
          name: question.name,
          ttl: 60,
          class: 'IN' as const,
          data,
        })),
      });
      this.socket.send(response, remote.port, remote.address);
    };
    if (this.slow.has(name)) this.held.push({ reply });
    else reply();
  }
}
