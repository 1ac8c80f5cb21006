// The chapters' problem shapes from torch tensors, for the chapters' operators (matrix_ops.cpp)
// and the exercises' (exercise_ops.cpp): the same checks for both.
#pragma once

#include <string>

#include "chapters/07_conv2d/conv2d.hpp"
#include "chapters/08_attention/attention.hpp"
#include "op_support.hpp"

namespace tut_torch {

/// conv2d's shape of x [N, C, H, W] and w [K, C, R, S] (checked 4-D by the caller) with `stride`
/// and `padding` (two values each), or a RuntimeError naming `op` with conv2d::shape_error()'s reason.
inline conv2d::ConvShape conv_shape_of(const at::Tensor& x, const at::Tensor& w, at::IntArrayRef stride,
                                       at::IntArrayRef padding, const std::string& op) {
  require(stride.size() == 2 && padding.size() == 2, op + ": stride and padding take two values");
  conv2d::ConvShape s;
  s.n = x.size(0);
  s.c = x.size(1);
  s.h = x.size(2);
  s.w = x.size(3);
  s.k = w.size(0);
  s.r = w.size(2);
  s.s = w.size(3);
  s.stride_h = stride[0];
  s.stride_w = stride[1];
  s.pad_h = padding[0];
  s.pad_w = padding[1];
  const std::string why = conv2d::shape_error(s);
  require(why.empty(), op + ": " + why);
  return s;
}

/// attention's shape of q [B, H, Sq, D] and k [B, H, Sk, D] (checked by the caller).
inline attention::Shape attention_shape_of(const at::Tensor& q, const at::Tensor& k, bool causal) {
  attention::Shape s;
  s.b = q.size(0);
  s.h = q.size(1);
  s.sq = q.size(2);
  s.sk = k.size(2);
  s.d = q.size(3);
  s.causal = causal;
  return s;
}

}  // namespace tut_torch
