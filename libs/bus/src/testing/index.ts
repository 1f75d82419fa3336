export {
  duplicateNumbers,
  type RetainedMessage,
  readSessionMessages,
  recordSessionMessages,
} from './read-session-messages.ts';
