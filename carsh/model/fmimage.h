/*
 * The image streams and samplers of a <FlowModel> (docs/formats.md, "Images"): the
 * attributes image= width= height= depth= channels= format= of an <Input> or <Output>, and the
 * <Sampler> argument element.
 */
#ifndef CARSH_MODEL_FMIMAGE_H
#define CARSH_MODEL_FMIMAGE_H

#include "model/flowmodel.h"
#include "model/xml.h"

/* Whether a stream element says image=. */
bool fm_is_image(xmlNodePtr n);
/* An image stream's attributes into a (kind and line already set): its pixel type and its
 * count "(W)*(H)". Errors name the element. */
int fm_read_image(const struct xml_ctx *x, xmlNodePtr n, struct fm_arg *a);
/* <Sampler name="s" coords="unnormalized" address="clamp_to_edge" filter="nearest"/>. */
int fm_read_sampler(const struct xml_ctx *x, xmlNodePtr n, struct fm_arg *a);

#endif
