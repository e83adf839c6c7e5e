//! The same layer in the forward-only `blocks` crate, holding copies of
//! this module's parameters: how every chapter and test puts the two
//! implementations side by side on the same numbers (in f64).

use blocks::layers as b;

use crate::Params;
use crate::nn::Norm;
use crate::nn::{DecoderLayer, EncoderLayer, FeedForward, LayerNorm, Linear, MultiHeadAttention};

/// A module that has a `blocks` twin.
pub trait ToBlocks {
    type Blocks;
    /// The `blocks` layer with copies of this module's parameters in `params`.
    fn to_blocks(&self, params: &Params<f64>) -> Self::Blocks;
}

impl ToBlocks for Linear {
    type Blocks = b::Linear;
    /// A Linear without bias gets a zero bias.
    fn to_blocks(&self, p: &Params<f64>) -> b::Linear {
        let w = p.get(self.w).value.clone();
        let b = match self.b {
            Some(id) => p.get(id).value.clone(),
            None => faer::Mat::zeros(1, w.ncols()),
        };
        b::Linear { w, b }
    }
}

impl ToBlocks for LayerNorm {
    type Blocks = b::LayerNorm;
    fn to_blocks(&self, p: &Params<f64>) -> b::LayerNorm {
        let (gamma, beta) = (p.get(self.gamma).value.clone(), p.get(self.beta).value.clone());
        b::LayerNorm { gamma, beta, eps: self.eps }
    }
}

impl ToBlocks for MultiHeadAttention {
    type Blocks = b::MultiHeadAttention;
    #[track_caller]
    fn to_blocks(&self, p: &Params<f64>) -> b::MultiHeadAttention {
        assert!(self.scaled, "to_blocks: the blocks attention always divides by √d_k");
        b::MultiHeadAttention {
            w_q: self.w_q.to_blocks(p),
            w_k: self.w_k.to_blocks(p),
            w_v: self.w_v.to_blocks(p),
            w_o: self.w_o.to_blocks(p),
            heads: self.heads,
        }
    }
}

impl ToBlocks for FeedForward {
    type Blocks = b::FeedForward;
    fn to_blocks(&self, p: &Params<f64>) -> b::FeedForward {
        b::FeedForward {
            up: self.up.to_blocks(p),
            down: self.down.to_blocks(p),
            act: b::Activation::Relu,
        }
    }
}

impl ToBlocks for EncoderLayer {
    type Blocks = b::EncoderLayer;
    fn to_blocks(&self, p: &Params<f64>) -> b::EncoderLayer {
        b::EncoderLayer {
            attn: self.attn.to_blocks(p),
            ff: self.ff.to_blocks(p),
            ln1: self.ln1.to_blocks(p),
            ln2: self.ln2.to_blocks(p),
            post: self.norm == Norm::Post,
        }
    }
}

impl ToBlocks for DecoderLayer {
    type Blocks = b::DecoderLayer;
    fn to_blocks(&self, p: &Params<f64>) -> b::DecoderLayer {
        b::DecoderLayer {
            self_attn: self.self_attn.to_blocks(p),
            cross_attn: self.cross_attn.to_blocks(p),
            ff: self.ff.to_blocks(p),
            ln1: self.ln1.to_blocks(p),
            ln2: self.ln2.to_blocks(p),
            ln3: self.ln3.to_blocks(p),
            post: self.norm == Norm::Post,
        }
    }
}
