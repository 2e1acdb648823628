import { defineCollection } from 'astro:content';
import { skillsLoader } from './data/skills-loader.ts';
import { sourceFromEnv } from './data/source.ts';

export const collections = {
  skills: defineCollection({ loader: skillsLoader(sourceFromEnv()) }),
};
