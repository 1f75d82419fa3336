export {
  duplicateNumbers,
  type RetainedMessage,
  readSessionMessages,
  recordSessionMessages,
  type SessionRecording,
} from './read-session-messages.ts';
