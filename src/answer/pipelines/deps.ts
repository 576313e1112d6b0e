// What every pipeline is given: the search subsystem, the engine chosen for the model, and the
// optional lookups for the extras (image sizes).
import type { SearchService } from '../../search/types.ts';
import type { AnswerEngine } from '../engines/engine.ts';
import type { ImageSizeLookup } from '../images.ts';

export interface PipelineDeps {
  search: SearchService;
  engine: AnswerEngine;
  imageSizes?: ImageSizeLookup;
}
