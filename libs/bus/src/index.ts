export { BlobStore, blobBucket, uploadBucket } from './blob-store.ts';
export { BusError, type BusErrorCode, type ExpiredBase, isBaseExpired } from './bus-error.ts';
export { type BusConnection, type ConnectBusOptions, connectBus } from './connect-bus.ts';
export { publishDeadLetter } from './dead-letter.ts';
export { deadLetterStream } from './dead-letter-names.ts';
export { deleteProvisioned } from './delete-provisioned.ts';
export { ensureDurableConsumer } from './ensure-durable-consumer.ts';
export { eventHeaders } from './event-headers.ts';
export { followSession, type SessionFollower } from './follow-session.ts';
export { BLOBS_HEADER, type BlobOffload, resolveBlobs } from './offload-blobs.ts';
export { isRuntimeFailure } from './outcomes.ts';
export { natsAuthorizationConfig } from './permissions/nats-config.ts';
export { NATS_ROLES, type NatsRole, sessionOwnersBucket } from './permissions/nats-roles.ts';
export { provision } from './provision.ts';
export { publishCommand } from './publish-command.ts';
export { eventSubjectOf, publishEvent } from './publish-event.ts';
export { publishFenceMarker } from './publish-fence.ts';
export { PublishPipeline, type StreamPublisher } from './publish-pipeline.ts';
export { type Decoded, type Received, startPullConsumer } from './pull-consumer.ts';
export { QueryClient } from './query-client.ts';
export {
  type ProjectionSnapshotReply,
  type RequestOptions,
  RuntimeClient,
  type RuntimeFailure,
  type RuntimeFailureCode,
  type RuntimeResult,
} from './runtime-client.ts';
export { type RequestServer, serveRequests } from './serve-requests.ts';
export { readSessionTip, SessionFence } from './session-fence.ts';
export {
  highestNumberOn,
  lastMessageOn,
  lastSessionSequence,
  onlyGarbageBetween,
  openTurns,
  purgeTurn,
  sequenceOf,
} from './session-state.ts';
