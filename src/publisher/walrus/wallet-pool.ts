// Stores in parallel from one wallet, as upstream's publisher does with its sub-wallets (walrus
// daemon `--n-clients`, here `--sub-wallets`: each sub-client with its own wallet funded from the main one): a
// transaction spends owned coins at one version, and two transactions built from one wallet at
// once pick the same coin — one fails ("not available for consumption"), and on Sui conflicting
// transactions on one owned object version can lock it until the epoch ends.
//
// The rules:
// - Each store runs on one sub-wallet it holds alone until the store ends, so a sub-wallet's coins
//   are never in two transactions in flight. Sub-wallets are derived from the main key (so a
//   restarted publisher finds the Blob objects a killed one paid for) and hold the Blob objects
//   they register.
// - The main wallet only funds sub-wallets, one funding transaction at a time.
// - A sub-wallet whose last transaction may have been sent but its outcome is unknown (the full
//   node did not answer) leaves the pool until that same signed transaction, sent again, settles
//   (executing the same bytes twice is idempotent on Sui); a different transaction on the same coin
//   versions is what would lock them.

import { createHash } from 'node:crypto';
import type { SuiGrpcClient } from '@mysten/sui/grpc';
import { decodeSuiPrivateKey, Signer, type Keypair, type SignatureWithBytes } from '@mysten/sui/cryptography';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { coinWithBalance, Transaction } from '@mysten/sui/transactions';

export const SUI_TYPE = '0x2::sui::SUI';
const SETTLE_FIRST_PAUSE_MS = 500;
const SETTLE_MAX_PAUSE_MS = 30_000;

export interface Funds {
  wal: bigint;
  sui: bigint;
}

/** A wallet's key (a sub-wallet's, or the main one as funder) that remembers the last transaction it signed, for a replay after an unknown outcome. */
export class SubWallet extends Signer {
  lastSigned: { bytes: Uint8Array; signature: string } | undefined;
  /** the last signed transaction's outcome is unknown: replay it before anything else */
  unsettled = false;

  constructor(
    readonly index: number,
    private readonly key: Keypair,
  ) {
    super();
  }

  sign(bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
    return this.key.sign(bytes) as Promise<Uint8Array<ArrayBuffer>>;
  }

  getKeyScheme() {
    return this.key.getKeyScheme();
  }

  getPublicKey() {
    return this.key.getPublicKey();
  }

  override async signTransaction(bytes: Uint8Array): Promise<SignatureWithBytes> {
    const signed = await this.key.signTransaction(bytes);
    this.lastSigned = { bytes, signature: signed.signature };
    return signed;
  }
}

/** Sub-wallet `index` of `main`: an Ed25519 key from SHA-256 of a label, the main secret key and the index. */
export function deriveSubWallet(main: Keypair, index: number): Ed25519Keypair {
  const { secretKey } = decodeSuiPrivateKey(main.getSecretKey());
  const seed = createHash('sha256').update('tusk publisher sub-wallet\0').update(secretKey).update(String(index)).digest();
  return Ed25519Keypair.fromSecretKey(seed);
}

export class WalletPool {
  readonly wallets: SubWallet[];
  private readonly idle: SubWallet[];
  private readonly waiting: { prefer: string | undefined; take: (w: SubWallet) => void }[] = [];
  private funding: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** the main wallet, as the funding transactions sign with it */
  private readonly funder: SubWallet;

  constructor(
    readonly main: Keypair,
    size: number,
    private readonly sui: SuiGrpcClient,
    private readonly walType: () => string,
  ) {
    this.wallets = Array.from({ length: size }, (_, i) => new SubWallet(i, deriveSubWallet(main, i)));
    this.funder = new SubWallet(-1, main);
    this.idle = [...this.wallets];
  }

  get addresses(): string[] {
    return this.wallets.map((w) => w.toSuiAddress());
  }

  async balances(address: string): Promise<Funds> {
    const [wal, sui] = await Promise.all([
      this.sui.core.getBalance({ owner: address, coinType: this.walType() }),
      this.sui.core.getBalance({ owner: address, coinType: SUI_TYPE }),
    ]);
    return { wal: BigInt(wal.balance.balance), sui: BigInt(sui.balance.balance) };
  }

  /** The main wallet's and every sub-wallet's funds together. */
  async total(): Promise<Funds> {
    const all = await Promise.all([this.main.toSuiAddress(), ...this.addresses].map((a) => this.balances(a)));
    return all.reduce((t, f) => ({ wal: t.wal + f.wal, sui: t.sui + f.sui }), { wal: 0n, sui: 0n });
  }

  /** Runs `work` with the main wallet itself, between funding transactions (a Blob object it owns from before the pool). */
  async withMain<T>(work: (wallet: Keypair) => Promise<T>): Promise<T> {
    const run = () => work(this.main);
    const done = this.funding.then(run, run);
    this.funding = done.catch(() => undefined);
    return done;
  }

  /**
   * Runs `work` on a sub-wallet held alone (`prefer`: the one that owns a Blob object to reuse),
   * after topping it up from the main wallet to `need`.
   */
  async withWallet<T>(prefer: string | undefined, need: Funds, work: (wallet: SubWallet) => Promise<T>): Promise<T> {
    const wallet = await this.acquire(prefer);
    try {
      await this.topUp(wallet, need);
      return await work(wallet);
    } catch (e) {
      if (isUnknownOutcome(e) && wallet.lastSigned) wallet.unsettled = true;
      throw e;
    } finally {
      if (wallet.unsettled) void this.settleThenRelease(wallet);
      else this.release(wallet);
    }
  }

  private acquire(prefer: string | undefined): Promise<SubWallet> {
    const i = prefer === undefined ? 0 : this.idle.findIndex((w) => w.toSuiAddress() === prefer);
    if (this.idle.length > 0 && i >= 0) return Promise.resolve(this.idle.splice(i, 1)[0]!);
    return new Promise((take) => this.waiting.push({ prefer, take }));
  }

  private release(wallet: SubWallet): void {
    const address = wallet.toSuiAddress();
    const i = this.waiting.findIndex((w) => w.prefer === undefined || w.prefer === address);
    if (i >= 0) this.waiting.splice(i, 1)[0]!.take(wallet);
    else this.idle.push(wallet);
  }

  /** Keeps a sub-wallet whose last transaction's outcome is unknown out of use, sending that same
   * signed transaction again (with a growing pause) until the full node settles it. */
  private async settleThenRelease(wallet: SubWallet): Promise<void> {
    for (let pause = SETTLE_FIRST_PAUSE_MS; wallet.unsettled && !this.closed; pause = Math.min(pause * 2, SETTLE_MAX_PAUSE_MS)) {
      await new Promise((resolve) => setTimeout(resolve, pause).unref());
      await this.resend(wallet).catch(() => undefined);
    }
    if (!wallet.unsettled) this.release(wallet);
  }

  /** Sends a wallet's last signed transaction again; throws while its outcome stays unknown. */
  private async resend(wallet: SubWallet): Promise<void> {
    const { bytes, signature } = wallet.lastSigned!;
    try {
      const result = await this.sui.core.executeTransaction({ transaction: bytes, signatures: [signature] });
      await this.sui.core.waitForTransaction({ result });
    } catch (e) {
      // refused outright (its inputs moved on, say): it can no more be pending
      if (isUnknownOutcome(e)) throw e;
    }
    wallet.unsettled = false;
  }

  /** Stops settling (the publisher is closing). */
  close(): void {
    this.closed = true;
  }

  /** Tops `wallet` up from the main wallet to hold at least `need`, plus a share of the main's funds so most stores need no funding. */
  private async topUp(wallet: SubWallet, need: Funds): Promise<void> {
    const address = wallet.toSuiAddress();
    const has = await this.balances(address);
    if (has.wal >= need.wal && has.sui >= need.sui) return;
    const run = async () => {
      const funder = this.funder;
      if (funder.unsettled) await this.resend(funder);
      const mine = await this.balances(this.main.toSuiAddress());
      const share = (n: bigint) => n / BigInt(2 * this.wallets.length);
      const wal = has.wal >= need.wal ? 0n : need.wal - has.wal + share(mine.wal > need.wal ? mine.wal - need.wal : 0n);
      const sui = has.sui >= need.sui ? 0n : need.sui - has.sui + share(mine.sui > need.sui ? mine.sui - need.sui : 0n);
      const tx = new Transaction();
      tx.setSender(this.main.toSuiAddress());
      const coins = [];
      if (sui > 0n) coins.push(tx.splitCoins(tx.gas, [sui])[0]!);
      if (wal > 0n) coins.push(coinWithBalance({ type: this.walType(), balance: wal }));
      tx.transferObjects(coins, address);
      let result;
      try {
        result = await funder.signAndExecuteTransaction({ transaction: tx, client: this.sui });
      } catch (e) {
        if (isUnknownOutcome(e)) funder.unsettled = true;
        throw e;
      }
      if (result.$kind === 'FailedTransaction') throw new Error(`funding sub-wallet ${address} failed: ${result.FailedTransaction.status.error?.message}`);
      await this.sui.core.waitForTransaction({ result });
    };
    // one funding transaction at a time: the main wallet's coins are in one transaction only
    const done = this.funding.then(run, run);
    this.funding = done.catch(() => undefined);
    await done;
  }
}

/** A failure after which a signed transaction may or may not have reached the chain. */
export function isUnknownOutcome(e: unknown): boolean {
  const err = e as { name?: string; message?: string; code?: string };
  if (err?.name === 'RpcError') return err.code === 'UNAVAILABLE' || err.code === 'DEADLINE_EXCEEDED' || err.code === 'CANCELLED' || (err.code === 'INTERNAL' && err.message === 'fetch failed');
  return (err?.name === 'TypeError' && err.message === 'fetch failed') || err?.name === 'TimeoutError' || err?.name === 'AbortError';
}
