/**
 * The delivery queue hands webhook delivery ids to senders when they are due. Like the job
 * queue it never decides anything: the sender claims the delivery with a guarded UPDATE
 * (transitions/claimDelivery.ts), so an id handed out twice is attempted once at a time.
 */
export type DeliveryHandler = (deliveryId: string) => Promise<void>;

export interface DeliveryQueue {
  /** The delivery's attempt `attempt` (0 for the first) is due at `at`. Durable: the row is already committed. */
  schedule(deliveryId: string, attempt: number, at: Date): Promise<void>;
  /** Start handing due delivery ids to `handler`, at most `concurrency` at a time. */
  consume(handler: DeliveryHandler, concurrency: number): void;
  /** Stops handing out ids and waits for the running handlers. */
  close(): Promise<void>;
}
