import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { MemorySaver } from '@langchain/langgraph';

/**
 * LangGraph's MemorySaver, saved to a file after every write: a durable checkpointer for tests whose
 * graph must survive its process (the SQLite runs of the process tests; PostgreSQL runs use PostgresSaver).
 */
export class FileSaver extends MemorySaver {
  private readonly file: string;
  constructor(file: string) {
    super();
    this.file = file;
    if (existsSync(file))
      Object.assign(
        this,
        JSON.parse(readFileSync(file, 'utf8'), (_k, v: unknown) =>
          v && typeof v === 'object' && '$b64' in v ? new Uint8Array(Buffer.from(String(v.$b64), 'base64')) : v,
        ),
      );
  }
  private save(): void {
    const bytes = (_k: string, v: unknown) =>
      v instanceof Uint8Array ? { $b64: Buffer.from(v).toString('base64') } : v;
    writeFileSync(this.file, JSON.stringify({ storage: this.storage, writes: this.writes }, bytes));
  }
  override async put(...a: Parameters<MemorySaver['put']>) {
    const r = await super.put(...a);
    this.save();
    return r;
  }
  override async putWrites(...a: Parameters<MemorySaver['putWrites']>) {
    await super.putWrites(...a);
    this.save();
  }
}
