export { BlobStore, blobBucket } from './blob-store.ts';
export {
  BusError,
  type BusErrorCode,
  type BusErrorOptions,
  type ExpiredBase,
  isBaseExpired,
  type SequenceConflict,
} from './bus-error.ts';
export { type BusConnection, type ConnectBusOptions, connectBus } from './connect-bus.ts';
export { DEAD_LETTER_TRUNCATED, type DeadLetterReason, publishDeadLetter } from './dead-letter.ts';
export { deadLetterFilter, deadLetterStream } from './dead-letter-names.ts';
export { deleteProvisioned } from './delete-provisioned.ts';
export { type DurableConsumerSpec, ensureDurableConsumer } from './ensure-durable-consumer.ts';
export { eventHeaders, headerSequence } from './event-headers.ts';
export {
  type FollowSessionOptions,
  followSession,
  type SessionFollower,
} from './follow-session.ts';
export { BLOBS_HEADER, type BlobOffload, resolveBlobs } from './offload-blobs.ts';
export {
  type NatsTenant,
  natsAuthorizationConfig,
  passwordVariable,
} from './permissions/nats-config.ts';
export {
  NATS_ROLES,
  type NatsRole,
  type RolePermissions,
  roleInboxPrefix,
  rolePermissions,
  sessionOwnersBucket,
} from './permissions/nats-roles.ts';
export {
  type ProvisionOptions,
  type ProvisionResult,
  provision,
  streamConfigs,
} from './provision.ts';
export {
  type PublishCommandOptions,
  type PublishCommandResult,
  publishCommand,
} from './publish-command.ts';
export {
  asFenced,
  eventSubjectOf,
  type PublishEventOptions,
  type PublishEventResult,
  publishEvent,
  WRONG_LAST_SEQUENCE,
} from './publish-event.ts';
export {
  type FenceMarkerOptions,
  type FenceMarkerResult,
  isFenceMarker,
  publishFenceMarker,
} from './publish-fence.ts';
export {
  type PipelinePublishOptions,
  PublishPipeline,
  type PublishPipelineOptions,
  type StreamPublisher,
} from './publish-pipeline.ts';
export {
  type Decoded,
  type PullConsumerOptions,
  type Received,
  type RunningPullConsumer,
  startPullConsumer,
} from './pull-consumer.ts';
export { QueryClient, type QueryClientOptions } from './query-client.ts';
export {
  isRuntimeFailure,
  type ProjectionSnapshotReply,
  type RequestOptions,
  RuntimeClient,
  type RuntimeClientOptions,
  type RuntimeFailure,
  type RuntimeFailureCode,
  type RuntimeResult,
} from './runtime-client.ts';
export { readSessionTip, SessionFence, type SessionTip } from './session-fence.ts';
export {
  highestNumberOn,
  lastMessageOn,
  lastSessionSequence,
  numberOf,
  type OpenTurn,
  onlyGarbageBetween,
  openTurns,
  purgeTurn,
  type SessionPosition,
  sequenceOf,
} from './session-state.ts';
