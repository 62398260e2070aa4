# Vendored for ember's test corpus (tests/scripts/test_public_programs.py) from
# https://github.com/tkipf/pygcn, pygcn/models.py, at commit
# 1600b5b748b3976413d1e307540ccc62605b4d6d
# (MIT licence; its text is in LICENCE at the top of this program's folder).
# Changed: nothing (the test writes a synthetic data/cora and passes a short --epochs).
import torch.nn as nn
import torch.nn.functional as F
from pygcn.layers import GraphConvolution


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super(GCN, self).__init__()

        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)
