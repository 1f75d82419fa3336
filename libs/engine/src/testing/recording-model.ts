import { createScriptedProvider, type ModelProvider, type ModelRequest } from '@agentwire/model';

/**
 * The scripted model, recording a copy of every request it is sent (the session hands its
 * history by reference, so each copy keeps what that request held). `contextLimit` makes
 * it refuse longer requests, as a provider does.
 */
export function recordingModel(contextLimit?: number): {
  model: ModelProvider;
  seen: ModelRequest[];
} {
  const scripted = createScriptedProvider(contextLimit === undefined ? {} : { contextLimit });
  const seen: ModelRequest[] = [];
  const model: ModelProvider = {
    providerId: scripted.providerId,
    modelId: scripted.modelId,
    stream: (request, signal) => {
      seen.push({ ...request, messages: [...request.messages] });
      return scripted.stream(request, signal);
    },
  };
  return { model, seen };
}
